"""Clefs de l'Aube: the GM sets the difficulty after the roll; the stored draws are re-read (L903-L911)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.urls import reverse

from campaigns import dice, services
from campaigns.models import Roll
from campaigns.tests.fairness import nonce_giving
from conftest import make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def scene(monkeypatch: Any) -> Any:
    """An action (rolled by the GM), CA 7 (aspect 3 + means 2 + skill bonus 2), d20 = 5, difficulty kept for later."""
    table = make_table("clefs-de-l-aube", prefix="nd")
    board = table.campaign.boards.first()
    thread = services.create_thread(table.gm, board, title="La tour", body="Le vent siffle.")
    test = {"kind": "action", "aspect": 3, "means": 2, "skill_nc": 12, "nd_hidden": True}
    # A test typed in full (a hidden ND) is the GM's; a player's test from the sheet: test_play_from_sheet.
    nonce = nonce_giving(table.campaign, {"system_test": test}, [5])
    post = services.create_post(
        table.gm, thread, body="J'escalade.", roll_requests=[{"system_test": test}], client_nonce=nonce
    )
    return table, post, post.rolls.get()


def test_the_gm_sets_the_difficulty_and_the_same_draw_is_re_read(scene: Any) -> None:
    table, post, roll = scene
    before = dict(roll.resolution)
    reread = services.set_roll_difficulty(table.gm, roll, difficulty="5")
    assert reread.post == post and reread.sequence == roll.sequence + 1 and reread.session is None
    assert reread.resolution["draws"] == roll.resolution["draws"] == [5]
    assert reread.resolution["outcome"]["nd"] == 5 and reread.resolution["outcome"]["nd_met"] is False
    assert reread.resolution["summary"]["fr"].endswith("ND 5 non atteint")
    assert reread.resolution["reevaluates"] == {"sequence": roll.sequence, "difficulty": 5}
    roll.refresh_from_db()
    assert roll.resolution == before
    assert dice.verify_chain(table.campaign)[0] is True
    # A co-GM may change their mind on the re-read roll (ND 0: met).
    again = services.set_roll_difficulty(table.cogm, reread, difficulty=0)
    assert again.resolution["outcome"]["nd_met"] is True


def test_it_re_reads_a_roll_only_once(scene: Any) -> None:
    table, _post, roll = scene
    reread = services.set_roll_difficulty(table.gm, roll, difficulty=5)
    with pytest.raises(ValidationError) as exc:
        services.set_roll_difficulty(table.gm, roll, difficulty=10)
    assert f"jet n° {reread.sequence}" in str(exc.value.message_dict["difficulty"])
    assert Roll.objects.count() == 2


@pytest.mark.parametrize("value", ["beaucoup", "", "500"])
def test_it_refuses_a_bad_difficulty_and_saves_nothing(scene: Any, value: str) -> None:
    table, _post, roll = scene
    with pytest.raises(ValidationError) as exc:
        services.set_roll_difficulty(table.gm, roll, difficulty=value)
    assert "difficulty" in exc.value.message_dict
    assert Roll.objects.count() == 1


@pytest.mark.parametrize("who", ["player", "player2", "spectator"])
def test_only_gms_set_the_difficulty(scene: Any, who: str) -> None:
    table, _post, roll = scene
    with pytest.raises(PermissionDenied):
        services.set_roll_difficulty(getattr(table, who), roll, difficulty=5)
    assert Roll.objects.count() == 1


def test_outsiders_get_404(scene: Any) -> None:
    table, _post, roll = scene
    with pytest.raises(Http404):
        services.set_roll_difficulty(table.outsider, roll, difficulty=5)


def test_the_gm_sets_it_from_the_post(client: Any, scene: Any) -> None:
    table, post, roll = scene
    url = reverse("campaigns:roll_difficulty", args=[roll.pk])
    thread_url = reverse("campaigns:thread", args=[post.thread_id])
    client.force_login(table.player)
    assert url not in client.get(thread_url).content.decode()
    assert client.post(url, {"difficulty": "5"}).status_code == 403
    client.force_login(table.gm)
    assert url in client.get(thread_url).content.decode()
    page = client.post(url, {"difficulty": "5"}, follow=True).content.decode()
    assert "ND 5 non atteint" in page
    assert url not in client.get(thread_url).content.decode()
    client.force_login(table.outsider)
    assert client.post(url, {"difficulty": "5"}).status_code == 404
