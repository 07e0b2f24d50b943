"""Fixes from the QA tour: readable purchase kinds, the GM note kept, no empty ranks heading."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from characters import ledger
from progression.labels import purchase_kind_label
from progression.models import CharacterBalance, PurchaseRequest, SessionAward
from progression.tests.conftest import make_character, make_session

pytestmark = pytest.mark.django_db


def test_it_names_purchase_kinds_in_french_and_english(altaride_table: Any, client: Any) -> None:
    maelis = make_character(altaride_table, altaride_table.player, "Maëlis")
    client.force_login(altaride_table.player)
    url = reverse("progression:character", kwargs={"character_id": maelis.pk})
    page = client.get(url).content.decode()
    assert '<option value="school" >École de magie</option>' in page
    assert '<option value="guild_spell" >Sortilège de guilde</option>' in page
    assert ">guild_spell<" not in page and ">magic_level<" not in page
    altaride_table.player.profile.language = "en"
    altaride_table.player.profile.save()
    english = client.get(url).content.decode()
    assert '<option value="school" >Magic school</option>' in english


def test_it_names_a_request_by_its_kind_not_its_key(table: Any, client: Any) -> None:
    alice = make_character(table, table.player, "Alice")
    ledger.append_entry(alice, "karma", 40, "gm_award")
    client.force_login(table.player)
    response = client.post(
        reverse("progression:purchase_create", kwargs={"character_id": alice.pk}),
        {"kind": "attribute", "p-attribute": "phy", "p-points": "5", "p-allocation.force": "5"},
    )
    assert response.status_code == 302
    assert PurchaseRequest.objects.get().kind == "attribute"
    page = client.get(reverse("progression:character", kwargs={"character_id": alice.pk})).content.decode()
    assert "<li>Points d&#x27;attribut (Physique +5) · " in page
    client.force_login(table.gm)
    page = client.get(reverse("progression:campaign", kwargs={"campaign_id": table.campaign.pk})).content.decode()
    assert "Alice</a>\u00a0: Points d&#x27;attribut · Physique +5 (" in page


def test_it_makes_unknown_kinds_readable() -> None:
    assert purchase_kind_label("raise_skill") == "Augmenter une compétence"
    assert purchase_kind_label("brand_new_kind") == "Brand new kind"


def test_it_keeps_the_gm_note_after_confirming_and_reopening(
    table: Any, client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    alice = make_character(table, table.player, "Alice")
    session = make_session(table)
    client.force_login(table.gm)
    url = reverse("progression:session_awards", kwargs={"session_id": session.pk})
    data = {
        "action": "confirm",
        f"row-{alice.pk}": "1",
        f"present-{alice.pk}": "on",
        f"extra-{alice.pk}": "3",
        f"extra_note-{alice.pk}": "Belle scène",
    }
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(url, data).status_code == 302
    page = client.get(url).content.decode()
    assert f'id="extra_note-{alice.pk}" value="Belle scène"' in page
    assert client.post(reverse("progression:session_reopen", kwargs={"session_id": session.pk})).status_code == 302
    page = client.get(url).content.decode()
    assert f'id="extra_note-{alice.pk}" value="Belle scène"' in page
    data[f"extra-{alice.pk}"] = "5"
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(url, data).status_code == 302
    correction = SessionAward.objects.filter(session=session, kind="correction").get()
    assert correction.amount == 2
    assert correction.note == "Correction (Belle scène) : 3 → 5"
    assert ledger.balances(alice)["karma"] == 5


def test_it_shows_ranks_only_when_there_are_some_with_attribute_names(table: Any, client: Any) -> None:
    alice = make_character(table, table.player, "Alice")
    ranks = {
        a: {"points": 0, "label": "amberite", "true_position": None, "public_position": None, "secret": False}
        for a in ("psy", "phy", "end", "cbt")
    }
    snapshot = CharacterBalance.objects.create(character=alice, balances={"karma": 0}, state={"ranks": ranks})
    client.force_login(table.player)
    url = reverse("progression:character", kwargs={"character_id": alice.pk})
    page = client.get(url).content.decode()
    assert "<h3>Rangs</h3>" not in page
    ranks["cbt"]["true_position"] = 2
    known = {a: {"points": 0, "label": "amberite", "public_position": None, "secret": False} for a in ranks}
    known["cbt"] = {"points": 5, "label": "ranked", "public_position": 3, "secret": False}
    snapshot.state = {"ranks": ranks, "known_ranks": known}
    snapshot.save()
    page = client.get(url).content.decode()
    assert "<h3>Rangs</h3>" in page
    assert "<li>Combat\u00a0: " in page and "<li>cbt" not in page
    assert "public 3" in page or "public 3" in page.replace("publique", "public")
    assert "2" not in page.split("<h3>Rangs</h3>")[1].split("</ul>")[0]  # the true position is the GMs'


def test_it_explains_a_confirmed_recap_without_visible_awards(
    table: Any, client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    alice = make_character(table, table.player, "Alice")
    make_character(table, table.player2, "Bob")
    session = make_session(table)
    client.force_login(table.gm)
    data = {
        "action": "confirm",
        f"row-{alice.pk}": "1",
        f"present-{alice.pk}": "on",
        f"extra-{alice.pk}": "4",
        f"extra_note-{alice.pk}": "Bravo",
    }
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(reverse("progression:session_awards", kwargs={"session_id": session.pk}), data).status_code
    url = reverse("progression:session_recap", kwargs={"session_id": session.pk})
    gm_page = client.get(url).content.decode()
    assert "Bravo" in gm_page and "restent privés" not in gm_page
    client.force_login(table.player2)  # Bob got nothing: no "not confirmed yet" while the pill says confirmed
    page = client.get(url).content.decode()
    assert "Aucun gain confirmé pour l" not in page
    assert "Aucun gain dans cette séance pour les personnages que vous pouvez voir." in page
    assert "ceux des autres restent privés" in page
    assert "Bravo" not in page
    client.force_login(table.spectator)
    page = client.get(url).content.decode()
    assert "Aucun solde à afficher pour les personnages que vous pouvez voir." in page
    assert "Rien de calculé" not in page


def test_it_keeps_gm_only_purchase_fields_from_players(altaride_table: Any, client: Any) -> None:
    maelis = make_character(altaride_table, altaride_table.player, "Maëlis")
    ledger.append_entry(maelis, "xp", 500, "gm_award")
    page_url = reverse("progression:character", kwargs={"character_id": maelis.pk})
    client.force_login(altaride_table.player)
    page = client.get(page_url, {"kind": "talent"}).content.decode()
    assert "Confirmé par le MJ" not in page and 'name="p-gm_confirmed"' not in page
    page = client.get(page_url, {"kind": "school"}).content.decode()
    assert "Dérogation spéciale" not in page
    response = client.post(
        reverse("progression:purchase_create", kwargs={"character_id": maelis.pk}),
        {"kind": "talent", "p-talent": "PER", "p-gm_confirmed": "on"},
    )
    assert response.status_code == 302
    purchase = PurchaseRequest.objects.get()
    assert purchase.request == {"kind": "talent", "talent": "PER"}
    page = client.get(page_url).content.decode()
    assert "<li>Talent (Perception " in page  # what is bought, not just its kind
    client.force_login(altaride_table.gm)
    page = client.get(page_url, {"kind": "talent"}).content.decode()
    assert 'name="p-gm_confirmed"' in page


def test_it_drops_gm_only_fields_from_a_players_request_in_the_service(altaride_table: Any) -> None:
    from progression import services

    maelis = make_character(altaride_table, altaride_table.player, "Maëlis")
    ledger.append_entry(maelis, "xp", 500, "gm_award")
    mine = services.request_purchase(
        altaride_table.player, maelis, request={"kind": "talent", "talent": "PER", "gm_confirmed": True}
    )
    assert "gm_confirmed" not in mine.request
    by_gm = services.request_purchase(
        altaride_table.gm, maelis, request={"kind": "talent", "talent": "VIG", "gm_confirmed": True}
    )
    assert by_gm.request["gm_confirmed"] is True


def test_it_counts_the_progress_in_good_french(table: Any, client: Any) -> None:
    from progression.models import RecalculationRun

    session = make_session(table)
    run = RecalculationRun.objects.create(campaign=table.campaign, session=session, status="done", total=1, done=1)
    url = reverse("progression:session_progress", kwargs={"session_id": session.pk})
    client.force_login(table.gm)
    body = client.get(url).content.decode()
    assert "1 sur 1 personnage\n" in body and "personnages" not in body
    run.total, run.done = 3, 2
    run.save()
    assert "2 sur 3 personnages" in client.get(url).content.decode()


def test_it_lists_every_character_with_its_live_balance_on_the_campaign_page(table: Any, client: Any) -> None:
    from characters.models import Character

    alice = make_character(table, table.player, "Alice")
    make_character(table, table.player2, "Bob", status=Character.Status.DRAFT)
    ledger.append_entry(alice, "karma", 40, "gm_award")
    CharacterBalance.objects.create(character=alice, balances={"karma": 99}, flags=[{"code": "negative_karma"}])
    url = reverse("progression:campaign", kwargs={"campaign_id": table.campaign.pk})
    client.force_login(table.gm)
    page = client.get(url).content.decode()
    assert 'balance-figure">40<' in page and ">99<" not in page  # the ledger, not a stale snapshot
    assert ">Bob</a></h3>" in page and "brouillon" in page.lower()  # no snapshot yet: still listed
    assert "Karma négatif" in page
    client.force_login(table.player2)
    page = client.get(url).content.decode()
    assert "<h2>Mes personnages</h2>" in page and ">Bob</a></h3>" in page and ">Alice<" not in page
    client.force_login(table.spectator)
    page = client.get(url).content.decode()
    assert "Vous n'avez aucun personnage dans cette campagne" in page


def test_it_shows_creation_ledger_notes_in_the_readers_language(altaride_table: Any, client: Any) -> None:
    from characters.services import _write_creation_ledger
    from rules.base import LedgerDraft, Msg

    maelis = make_character(altaride_table, altaride_table.player, "Maëlis")
    note = Msg("Reliquat des 500 points de création", "Leftover of the 500 creation points")
    _write_creation_ledger(maelis, [LedgerDraft("xp", 12, "creation_budget", note)], altaride_table.gm)
    url = reverse("progression:character", kwargs={"character_id": maelis.pk})
    client.force_login(altaride_table.player)
    assert "Reliquat des 500 points de création" in client.get(url).content.decode()
    altaride_table.player.profile.language = "en"
    altaride_table.player.profile.save()
    page = client.get(url).content.decode()
    assert "Leftover of the 500 creation points" in page and "Reliquat" not in page


def test_it_speaks_to_the_owner_and_about_the_character_to_the_gm(table: Any, client: Any) -> None:
    alice = make_character(table, table.player, "Alice")
    url = reverse("progression:character", kwargs={"character_id": alice.pk})
    client.force_login(table.player)
    assert "Ce que vous pouvez acheter" in client.get(url).content.decode()
    client.force_login(table.gm)
    page = client.get(url).content.decode()
    assert "Ce que Alice peut acheter" in page and "Ce que vous pouvez acheter" not in page


def test_it_titles_the_tab_like_its_link_and_links_back_to_the_campaign(table: Any, client: Any) -> None:
    client.force_login(table.player)
    page = client.get(reverse("progression:campaign", kwargs={"campaign_id": table.campaign.pk})).content.decode()
    assert "<h1>Expérience et karma</h1>" in page
    assert f'href="{reverse("campaigns:detail", args=[table.campaign.slug])}"' in page
