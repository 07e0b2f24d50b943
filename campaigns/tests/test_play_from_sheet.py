"""Play from the sheet: a system test is built by the rules from the chosen character's sheet.

Per system: the form offers exactly the sheet's tests; a player's test is
resolved with the sheet's values whatever numbers the client sends (or
refused); a GM-only input from a player is refused and nothing is saved; the
roll keeps showing the values of the sheet version it read.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

import rules
from api.tests.conftest import token_client
from campaigns import dice, play, services
from campaigns.models import Post, Roll
from campaigns.tests.sheet_fairness import nonce_for
from characters.models import Character, SheetVersion
from conftest import make_table

pytestmark = pytest.mark.django_db

SHEETS: dict[str, dict[str, Any]] = {
    "clefs-de-l-aube": {
        "skills": [{"name": "Épée", "aspect": "PH", "nc": 5}, {"name": "Pistage", "aspect": "ME", "nc": 3}],
        "means": {"PU": 2, "RE": -2, "MA": 0, "PR": 0, "EX": 0, "PE": 0},
    },
    "altaride": {
        "talents": {"HAB": 12, "VIG": 8},
        "skills": [{"key": "epee", "level": 3, "formula": "HAB+VIG"}],
        "guild_spells": [{"name": "Flamme", "level": 2}, {"name": "Tempête", "level": 9}],
    },
    "sms": {
        "modules": [
            {"name": "Escrime", "kind": "positive", "rank": 3, "scope": 1},
            {"name": "Agile", "kind": "positive", "rank": 1, "scope": 1},
            {"name": "Magie des arcanes", "kind": "positive", "rank": 2, "scope": 1, "predefined": "arcane_power"},
        ],
        "spells": [
            {"name": "Bouclier", "magic_type": "arcane", "nature": "defensive", "power": 1},
            {"name": "Soin", "magic_type": "arcane", "nature": "curative", "power": 1},
        ],
    },
    "ambre": {"powers": [{"power": "sorcellerie"}], "characteristics": {"force": 17}},
}
#: A line of each system, a player input to declare, a sheet number a client might forge, a GM-only input.
CASES: dict[str, dict[str, Any]] = {
    "clefs-de-l-aube": {
        "test": "skill:0",
        "declared": {"means_code": "PU"},
        "forged": {"skill_nc": 20},
        "gm_only": ("nd", 3),
        "label": "Épée (Physique (Ph))",
    },
    "altaride": {
        "test": "skill:epee",
        "declared": {"action_index": 1},
        "forged": {"target": 19},
        "gm_only": ("target_modifier", 5),
        "label": "epee",
    },
    "sms": {
        "test": "module:0",
        "declared": {"with_module": "1"},
        "forged": {"score": 12},
        "gm_only": ("die", 4),
        "label": "Escrime (3)",
    },
    "ambre": {
        "test": "spell:sorcellerie",
        "declared": {"base_cost": 3},
        "forged": {"energy_available": 999},
        "gm_only": ("magic_rich", True),
        "label": "Lancer un sort",
    },
}
SYSTEMS = list(CASES)


def _scene(slug: str) -> tuple[Any, Any, Character]:
    table = make_table(slug, prefix=f"pl{slug[:3]}")
    board = table.campaign.boards.first()
    thread = services.create_thread(table.gm, board, title="La scène", body="Tout commence.")
    hero = Character.objects.create(
        campaign=table.campaign,
        owner=table.player,
        name="Iris",
        system=slug,
        status="approved",
        sheet=SHEETS[slug],
    )
    SheetVersion.objects.create(character=hero, version=1, name=hero.name, sheet=hero.sheet, status="approved")
    return table, thread, hero


def _options(html: str, name: str) -> list[str]:
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html, re.S)
    assert select, f"no select {name}"
    return [v for v in re.findall(r'<option value="([^"]*)"', select.group(1)) if v]


def _api_post(user: Any, thread: Any, roll: dict[str, Any]) -> Any:
    return token_client(user).post(
        f"/api/v1/threads/{thread.pk}/posts/", {"body": "J'agis.", "roll_requests": [roll]}, format="json"
    )


@pytest.mark.parametrize("slug", SYSTEMS)
def test_the_form_offers_exactly_the_sheet_s_tests_and_only_playable_characters(slug: str) -> None:
    table, _thread, hero = _scene(slug)
    draft = Character.objects.create(campaign=table.campaign, owner=table.player, name="Brouillon", system=slug)
    other = Character.objects.create(
        campaign=table.campaign, owner=table.player2, name="Autre", system=slug, status="approved"
    )
    client = Client()
    client.force_login(table.player)
    url = reverse("campaigns:sheet_test_fields", args=[table.campaign.slug])
    html = client.get(url, {"sheet_character": hero.pk}).content.decode()
    assert _options(html, "sheet_character") == [str(hero.pk)]
    assert str(draft.pk) not in _options(html, "sheet_character")
    assert str(other.pk) not in _options(html, "sheet_character")
    system = rules.get_system(slug)
    expected = [t.key for t in system.sheet_tests(hero.current_sheet(), table.campaign.system_settings)]
    assert _options(html, "sheet_test") == expected
    assert CASES[slug]["label"] in html
    # No JSON text area, no free-text key: the test is chosen by its name.
    chosen = client.get(url, {"sheet_character": hero.pk, "sheet_test": CASES[slug]["test"]}).content.decode()
    assert "<textarea" not in chosen
    assert "Valeurs lues sur la feuille" in chosen
    gm_path = CASES[slug]["gm_only"][0]
    assert f'name="declared__{gm_path}"' not in chosen, "a player is not offered a GM-only input"


@pytest.mark.parametrize("slug", SYSTEMS)
def test_a_player_s_test_is_resolved_with_the_sheet_s_values_whatever_the_client_sends(
    slug: str, monkeypatch: Any
) -> None:
    table, thread, hero = _scene(slug)
    case = CASES[slug]
    # Numbers typed in full: refused (only a GM types a test in full).
    forged_test = {"kind": rules.get_system(slug).sheet_tests(hero.sheet)[0].kind, **case["forged"]}
    response = _api_post(table.player, thread, {"system_test": forged_test, "character_id": hero.pk})
    assert response.status_code == 400, response.content
    # A sheet number sent along with the sheet test: refused, nothing saved.
    forged = {
        "sheet_test": {"test": case["test"], "declared": {**case["declared"], **case["forged"]}},
        "character_id": hero.pk,
    }
    response = _api_post(table.player, thread, forged)
    assert response.status_code == 400
    assert "feuille" in response.content.decode() or "sheet" in response.content.decode()
    assert Roll.objects.count() == 0 and Post.objects.filter(thread=thread).count() == 1
    # The sheet test: its numbers are the sheet's.
    good = {"sheet_test": {"test": case["test"], "declared": case["declared"]}, "character_id": hero.pk}
    response = _api_post(table.player, thread, good)
    assert response.status_code == 201, response.content
    roll = Roll.objects.get()
    source = roll.request["from_sheet"]
    assert source["character"] == hero.pk and source["version"] == hero.version and source["test"] == case["test"]
    built = rules.get_system(slug).build_test(hero.sheet, case["test"], case["declared"])
    assert {k: v for k, v in roll.request.items() if k != "from_sheet"} == built.request
    for key, value in case["forged"].items():
        assert roll.request.get(key) != value
    assert [r["value"] for r in source["reads"]] == [r.value for r in built.reads]


@pytest.mark.parametrize("slug", SYSTEMS)
def test_a_gm_only_input_from_a_player_is_refused_and_nothing_is_saved(slug: str) -> None:
    table, thread, hero = _scene(slug)
    case = CASES[slug]
    path, value = case["gm_only"]
    declared = {**case["declared"], path: value}
    # API
    response = _api_post(
        table.player, thread, {"sheet_test": {"test": case["test"], "declared": declared}, "character_id": hero.pk}
    )
    assert response.status_code == 400
    assert "Seul le MJ fixe" in response.content.decode()
    # HTML: the same service function refuses it
    client = Client()
    client.force_login(table.player)
    data = {"body": "J'agis.", "visibility": "public", "sheet_character": hero.pk, "sheet_test": case["test"]}
    data.update({f"declared__{k}": v for k, v in declared.items()})
    response = client.post(reverse("campaigns:thread_reply", args=[thread.pk]), data)
    assert response.status_code == 400
    assert "Seul le MJ fixe" in response.content.decode()
    assert Roll.objects.count() == 0 and Post.objects.filter(thread=thread).count() == 1
    # The GM may add it before the roll, on the player's character too.
    response = _api_post(
        table.gm, thread, {"sheet_test": {"test": case["test"], "declared": declared}, "character_id": hero.pk}
    )
    assert response.status_code == 201, response.content
    assert Roll.objects.get().request["from_sheet"]["declared"][path] == value


def test_a_draft_or_someone_else_s_character_cannot_roll_from_its_sheet() -> None:
    table, thread, hero = _scene("clefs-de-l-aube")
    Character.objects.filter(pk=hero.pk).update(status="draft")
    roll = {"sheet_test": {"test": "skill:0"}, "character_id": hero.pk}
    assert _api_post(table.player, thread, roll).status_code == 400
    Character.objects.filter(pk=hero.pk).update(status="approved")
    assert _api_post(table.player2, thread, roll).status_code == 400
    assert Roll.objects.count() == 0


def test_the_roll_keeps_showing_the_values_of_the_sheet_version_it_read(monkeypatch: Any) -> None:
    table, thread, hero = _scene("clefs-de-l-aube")
    roll = {"sheet_test": {"test": "skill:0", "declared": {"means_code": "PU"}}, "character_id": hero.pk}
    services.create_post(table.player, thread, body="En garde !", roll_requests=[roll])
    # The GM changes the sheet later: Épée NC 5 → 9, version 2.
    sheet = {**hero.sheet, "skills": [{"name": "Épée", "aspect": "PH", "nc": 9}]}
    Character.objects.filter(pk=hero.pk).update(sheet=sheet, version=2)
    SheetVersion.objects.create(character=hero, version=2, name=hero.name, sheet=sheet, status="approved")
    client = Client()
    client.force_login(table.player)
    html = client.get(reverse("campaigns:thread", args=[thread.pk])).content.decode()
    assert "Épée (NC) 5 (feuille v1) + Physique (Ph) 10 + Puissance (Pu) 2" in html
    assert f"/characters/{hero.pk}/history/?a=1" in html
    # Another member reads the same values, without the link to a sheet they may not open.
    other = Client()
    other.force_login(table.player2)
    html2 = other.get(reverse("campaigns:thread", args=[thread.pk])).content.decode()
    assert "Épée (NC) 5 (feuille v1)" in html2 and f"/characters/{hero.pk}/history/" not in html2
    # The link opens that version compared with now.
    history = client.get(f"/characters/{hero.pk}/history/?a=1").content.decode()
    assert "Version 1 → version 2" in history


def test_the_gm_sets_the_difficulty_after_a_player_s_sheet_roll(monkeypatch: Any) -> None:
    table, thread, hero = _scene("clefs-de-l-aube")
    roll = {"sheet_test": {"test": "skill:0", "declared": {"means_code": "PU"}}, "character_id": hero.pk}
    post = services.create_post(table.player, thread, body="En garde !", roll_requests=[roll])
    reread = services.set_roll_difficulty(table.gm, post.rolls.get(), difficulty=10)
    assert reread.resolution["outcome"]["nd"] == 10


def test_the_sheet_page_offers_what_its_owner_can_roll_and_opens_the_prefilled_form() -> None:
    table, thread, hero = _scene("altaride")
    client = Client()
    client.force_login(table.player)
    html = client.get(reverse("characters:detail", args=[hero.pk])).content.decode()
    assert "Ce que vous pouvez lancer" in html
    assert 'value="skill:epee"' in html and 'value="talent:HAB"' in html
    # Each line's button is named for what it rolls, in the reader's language.
    assert re.search(r'value="skill:epee" class="[^"]*" aria-label="Lancer [^"]+">Lancer</button>', html)
    from accounts.models import Profile

    Profile.objects.filter(user=table.player).update(language="en")
    english = client.get(reverse("characters:detail", args=[hero.pk])).content.decode()
    assert re.search(r'value="skill:epee" class="[^"]*" aria-label="Roll [^"]+">Roll</button>', english)
    Profile.objects.filter(user=table.player).update(language="fr")
    # An incantation beyond the caster's Occult Endurance is impossible, not a roll.
    assert "Impossible : il faut 9 points d&#x27;Endurance Occulte" in html
    assert 'value="spell:1"' not in html and 'value="spell:0"' in html
    assert f'<option value="{thread.pk}" selected>' in html
    url = reverse("campaigns:roll_from_sheet", args=[table.campaign.slug])
    response = client.get(url, {"character": hero.pk, "test": "skill:epee", "thread": thread.pk})
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert '<option value="skill:epee" selected>' in page
    speaking = re.search(r'<select name="character"[^>]*>(.*?)</select>', page, re.S)
    assert speaking and f'<option value="{hero.pk}" selected>Iris</option>' in speaking.group(1)  # speaks as her
    assert "Valeurs lues sur la feuille" in page
    # Not for another player, nor a spectator.
    other = Client()
    other.force_login(table.player2)
    assert "Ce que vous pouvez lancer" not in other.get(reverse("characters:detail", args=[hero.pk])).content.decode()
    spectator = Client()
    spectator.force_login(table.spectator)
    assert spectator.get(url, {"character": hero.pk, "test": "x", "thread": thread.pk}).status_code == 404


def test_the_preview_shows_the_odds_of_the_sheet_test_and_an_impossible_incantation() -> None:
    table, _thread, hero = _scene("altaride")
    client = Client()
    client.force_login(table.player)
    url = reverse("campaigns:roll_preview", args=[table.campaign.slug])
    text = client.get(url, {"sheet_character": hero.pk, "sheet_test": "talent:HAB"}).content.decode()
    assert "60 % de chances de réussite" in text or "60 %" in text
    text = client.get(url, {"sheet_character": hero.pk, "sheet_test": "spell:1"}).content.decode()
    assert "Impossible" in text and "%" not in text
    assert Roll.objects.count() == 0


def test_the_preview_shows_every_value_the_roll_will_read_wounds_included() -> None:
    table, _thread, hero = _scene("sms")
    sheet = {**hero.sheet, "wounds": [{"nature": "Estafilade", "severity": "light"}]}
    Character.objects.filter(pk=hero.pk).update(sheet=sheet)
    client = Client()
    client.force_login(table.player)
    url = reverse("campaigns:roll_preview", args=[table.campaign.slug])
    text = client.get(url, {"sheet_character": hero.pk, "sheet_test": "module:0"}).content.decode()
    assert "Escrime 3 (feuille v1) − Blessure légère (Estafilade) 1" in text
    assert "de chances de réussite" in text or "%" in text


def test_sms_wounds_and_fatigue_lower_the_action_score_automatically(monkeypatch: Any) -> None:
    table, thread, hero = _scene("sms")
    sheet = {**hero.sheet, "wounds": [{"nature": "Estafilade", "severity": "serious"}], "fatigue": {"transient": 1}}
    Character.objects.filter(pk=hero.pk).update(sheet=sheet)
    hero.refresh_from_db()
    built = rules.get_system("sms").build_test(hero.sheet, "module:0", {})
    odds = rules.get_system("sms").odds(built.request)
    # Escrime 3, a serious wound −2, one fatigue level −1 (L137-L154): raw 0, which counts as 1 (L95).
    assert [(m["kind"], m["rank"]) for m in built.request["modules"]] == [
        ("positive", 3),
        ("negative", 2),
        ("negative", 1),
    ]
    assert odds["score"] == 1
    post = services.create_post(
        table.player,
        thread,
        body="Je pare.",
        roll_requests=[{"sheet_test": {"test": "module:0"}, "character_id": hero.pk}],
    )
    text = play.reads_text(post.rolls.get().request["from_sheet"], "fr")
    assert text == "Escrime 3 (feuille v1) − Blessure grave (moyenne) (Estafilade) 2 − Fatigue 1"


def test_sms_spell_prerequisites_are_enforced() -> None:
    table, thread, hero = _scene("sms")
    response = _api_post(table.player, thread, {"sheet_test": {"test": "spell:1"}, "character_id": hero.pk})
    assert response.status_code == 400
    assert "Espace-Temps" in response.content.decode()
    assert Roll.objects.count() == 0


def test_the_api_lists_the_sheet_tests_to_whoever_may_roll_them() -> None:
    table, _thread, hero = _scene("sms")
    response = token_client(table.player).get(f"/api/v1/characters/{hero.pk}/sheet-tests/")
    assert response.status_code == 200
    data = response.json()
    assert data["version"] == 1
    keys = [t["key"] for t in data["tests"]]
    assert keys == ["module:0", "module:1", "module:2", "spell:0", "spell:1"]
    spell = next(t for t in data["tests"] if t["key"] == "spell:1")
    assert "Espace-Temps" in spell["impossible"]["fr"]
    audiences = {f["path"]: f["audience"] for f in data["tests"][0]["declared"]}
    assert audiences["die"] == "gm" and audiences["chosen_die"] == "player"
    assert token_client(table.player2).get(f"/api/v1/characters/{hero.pk}/sheet-tests/").status_code == 404
    assert token_client(table.gm).get(f"/api/v1/characters/{hero.pk}/sheet-tests/").status_code == 200


def test_a_secret_sheet_value_read_by_a_roll_is_shown_only_to_the_gms_and_the_roller() -> None:
    """Ambre's attribute points are secret (owner and GMs): a comparison's tiebreak is not shown to others."""
    table, thread, hero = _scene("ambre")
    roll = {
        "sheet_test": {"test": "characteristic:force", "declared": {"b_value": 12}},
        "character_id": hero.pk,
    }
    services.create_post(table.gm, thread, body="Bras de fer.", roll_requests=[roll])
    url = reverse("campaigns:thread", args=[thread.pk])
    gm = Client()
    gm.force_login(table.gm)
    assert "Force 17 (feuille v1) + Physique 0" in gm.get(url).content.decode()
    other = Client()
    other.force_login(table.player2)
    html = other.get(url).content.decode()
    assert "Force 17 (feuille v1)" in html and "Physique 0" not in html


def test_the_gm_adds_gm_only_inputs_after_a_player_s_sheet_roll_with_the_same_dice(monkeypatch: Any) -> None:
    from django.core.exceptions import PermissionDenied, ValidationError

    table, thread, hero = _scene("altaride")
    roll = {"sheet_test": {"test": "talent:HAB"}, "character_id": hero.pk}
    nonce = nonce_for(table.player, table.campaign, roll, [14])
    post = services.create_post(table.player, thread, body="Je saute.", roll_requests=[roll], client_nonce=nonce)
    first = post.rolls.get()
    assert first.resolution["outcome"]["success"] is False  # 14 over HAB 12
    with pytest.raises(PermissionDenied):
        services.add_gm_inputs(table.player, first, declared={"target_modifier": 3})
    # The sheet changes meanwhile: the re-read still reads version 1.
    Character.objects.filter(pk=hero.pk).update(sheet={"talents": {"HAB": 2}}, version=2)
    client = Client()
    client.force_login(table.gm)
    page = client.get(reverse("campaigns:thread", args=[thread.pk])).content.decode()
    assert 'name="gm__target_modifier"' in page and "Données du MJ après le jet" in page
    response = client.post(reverse("campaigns:roll_gm_inputs", args=[first.pk]), {"gm__target_modifier": "3"})
    assert response.status_code == 302
    reread = Roll.objects.exclude(pk=first.pk).get()
    assert reread.resolution["draws"] == [14] and reread.resolution["outcome"]["success"] is True  # 14 under 15
    assert reread.request["gm_inputs"]["sequence"] == first.sequence
    assert reread.request["from_sheet"]["version"] == 1 and reread.request["target"] == 12
    assert reread.resolution["summary"]["fr"].startswith(f"Avec les données du MJ (jet n° {first.sequence})")
    first.refresh_from_db()
    assert first.resolution["outcome"]["success"] is False
    with pytest.raises(ValidationError):
        services.add_gm_inputs(table.gm, first, declared={"target_modifier": 5})
    assert Roll.objects.count() == 2 and dice.verify_chain(table.campaign)[0] is True
    other = Client()
    other.force_login(table.player)
    assert "gm__target_modifier" not in other.get(reverse("campaigns:thread", args=[thread.pk])).content.decode()


def test_the_api_adds_gm_inputs_after_a_clefs_sheet_roll_and_refuses_players(monkeypatch: Any) -> None:
    table, thread, hero = _scene("clefs-de-l-aube")
    roll = {"sheet_test": {"test": "skill:0", "declared": {"means_code": "PU"}}, "character_id": hero.pk}
    first = services.create_post(table.player, thread, body="En garde !", roll_requests=[roll]).rolls.get()
    url = f"/api/v1/rolls/{first.pk}/gm-inputs/"
    assert token_client(table.player).post(url, {"declared": {"nd": 10}}, format="json").status_code == 403
    response = token_client(table.gm).post(url, {"declared": {"nd": 10}}, format="json")
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["resolution"]["draws"] == first.resolution["draws"] and data["resolution"]["outcome"]["nd"] == 10
    assert data["request"]["from_sheet"]["declared"] == {"means_code": "PU", "nd": 10}
    assert token_client(table.outsider).post(url, {"declared": {"nd": 1}}, format="json").status_code == 404
