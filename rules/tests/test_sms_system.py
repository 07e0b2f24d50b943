"""SMS system interface: declarations, replay, odds, bad requests, purity."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rules import get_system
from rules.base import RecordingRandom, RulesError, ScriptedRandom, SeededRandom
from rules.tests import present

SMS = get_system("sms")


def test_it_describes_every_declaration_as_json():
    data = SMS.describe()
    json.dumps(data)
    assert data["slug"] == "sms" and data["currencies"] == ["xp"]
    assert {
        "action",
        "attack_npc",
        "defend_npc",
        "opposed",
        "spell_builder",
        "cast_spell",
        "counter_spell",
        "dispel",
        "fall",
        "projection",
        "disease",
        "poison",
    } <= set(data["test_kinds"])
    steps = [s["key"] for s in data["creation_steps"]]
    assert steps == ["race", "background", "archetype", "modules", "magic", "equipment"]
    paths = {f["path"] for f in data["sheet_fields"]}
    for step in data["creation_steps"]:
        assert set(step["paths"]) <= paths
    settings = {f["path"]: f for f in data["campaign_settings"]}
    assert settings["health_model"]["default"] == "severity_modules"
    assert settings["leather_armour"]["default"] == "minus_two"
    assert settings["spell_range_reading"]["default"] == "score"
    assert set(data["purchase_kinds"]) == {"raise_module", "new_module"}


def test_it_migrates_and_fills_defaults():
    old = {"race": "tifin", "fatigue": {"lasting": 2}}
    new = SMS.migrate_sheet(old, 1)
    assert new["fatigue"] == {"transient": 0, "lasting": 2, "persistent": 0} and new["modules"] == []
    assert SMS.migrate_sheet(new, 1) == new
    with pytest.raises(ValueError):
        SMS.migrate_sheet(old, SMS.schema_version + 1)


@pytest.mark.parametrize(
    "request_",
    [
        {"kind": "action", "score": 3, "die": 10, "circumstances": 1},
        {
            "kind": "attack_npc",
            "modules": [{"kind": "positive", "rank": 2}, {"kind": "negative", "rank": 1}],
            "base_die": 8,
            "severity": "serious",
        },
        {"kind": "opposed", "attacker_score": 4, "attacker_die": 8, "defender_score": 3, "defender_die": 6},
        {"kind": "fall", "height": 18, "score": 4},
        {"kind": "cast_spell", "score": 4, "nature": "misc", "power": 3},
    ],
)
def test_it_replays_recorded_draws(request_):
    first = SMS.resolve(request_, SeededRandom(7))
    again = SMS.resolve(request_, ScriptedRandom(first.draws))
    assert again.to_dict() == first.to_dict()


def test_it_resolves_a_plain_action_with_modules_and_odds():
    req = {"kind": "action", "modules": [{"kind": "positive", "rank": 3}], "modifier": 1, "die": 8}
    assert SMS.odds(req) == {"score": 4, "die": 8, "success": 0.5, "failure": 0.5}
    res = SMS.resolve(req, ScriptedRandom([4]))
    assert res.success and res.draws == [4] and res.summary.en.startswith("Success")
    res = SMS.resolve(
        {"kind": "action", "score": 2, "die": 6, "threshold": "relative", "chosen_die": 10}, ScriptedRandom([7])
    )
    assert not res.success and res.outcome["stake"] == "major" and "major" in res.summary.en
    assert SMS.odds({"kind": "fall", "height": 3}) is None


@pytest.mark.parametrize(
    ("request_", "path"),
    [
        ({"kind": "nope"}, "kind"),
        ({"kind": "action", "score": "x", "die": 6}, "score"),
        ({"kind": "action", "score": 3}, "die"),
        ({"kind": "attack_npc", "score": 3, "severity": "annihilation"}, "severity"),
        ({"kind": "fall", "height": -1}, "height"),
        ({"kind": "cast_spell", "score": 3, "range": "7"}, "range"),
    ],
)
def test_it_rejects_bad_requests_with_paths(request_, path):
    with pytest.raises(RulesError) as exc:
        SMS.resolve(request_, RecordingRandom(SeededRandom(1)))
    assert path in {e.path for e in exc.value.errors}
    assert all(e.message.fr and e.message.en for e in exc.value.errors)


def test_settings_are_validated():
    assert SMS.validate_settings(None) == []
    assert {e.path for e in SMS.validate_settings({"health_model": "hp"})} == {"health_model"}
    assert {e.code for e in SMS.validate_settings({"archetype_modules": {"zzz": []}})} == {"unknown_archetype"}


def test_it_imports_nothing_from_django():
    code = "import sys, rules.sms; sys.exit(1 if any(m.startswith('django') for m in sys.modules) else 0)"
    root = Path(__file__).resolve().parents[2]
    assert subprocess.run([sys.executable, "-c", code], cwd=root).returncode == 0
    for path in (root / "rules" / "sms").glob("*.py"):
        text = path.read_text()
        assert "import django" not in text and "from django" not in text
        assert "open(" not in text


@pytest.mark.parametrize(
    ("request_", "die", "success"),
    [
        # Spec D4: GM D8, S 5 picks D12 on a relative threshold → rolls the D12, P = 5/12 (L97, L109-L117).
        ({"score": 5, "die": 8, "chosen_die": 12, "threshold": "relative"}, 12, 5 / 12),
        # S 5 picks D4 → automatic success («minable»).
        ({"score": 5, "die": 8, "chosen_die": 4, "threshold": "relative"}, 4, 1.0),
        # From D8 a D14 is clamped to D12 (L119).
        ({"score": 5, "die": 8, "chosen_die": 14, "threshold": "relative"}, 12, 5 / 12),
        # Crevasse (absolute threshold): a lower die is a failure (L107).
        ({"score": 3, "die": 6, "chosen_die": 4, "threshold": "absolute"}, 4, 0.0),
        # No threshold: the GM die is used whatever the player asks.
        ({"score": 5, "die": 8, "chosen_die": 12}, 8, 5 / 8),
    ],
)
def test_it_gives_odds_of_the_die_actually_rolled(request_, die, success):
    """Regression: odds ignored the player's chosen die (L97 «opter pour un dé moins fort ou plus fort»)."""
    odds = present(SMS.odds({"kind": "action", **request_}))
    assert odds["die"] == die
    assert odds["success"] == pytest.approx(success)
    resolution = SMS.resolve({"kind": "action", **request_}, ScriptedRandom([1]) if die > 5 else ScriptedRandom([]))
    assert resolution.outcome["die"] == die


def test_it_heals_at_light_level_when_no_level_is_given():
    """Regression: ``level: None`` crashed with a ValueError instead of using the default (light)."""
    res = SMS.resolve({"kind": "heal", "level": None, "wounds": [{"severity": "light"}]}, ScriptedRandom([]))
    assert res.outcome["wounds"] == [] and res.outcome["healed"] == 1


def test_it_previews_a_built_spell_as_the_builder_s_odds():
    """The spell builder shows difficulty and energy cost before any roll (L366-L376, L301, L414)."""
    # Offensive, serious wound, against a D6 defence, small area: D6 + 2 = D8; area costs 1 on the score.
    preview = present(
        SMS.odds({"kind": "spell_builder", "nature": "offensive", "severity": "serious", "target_die": 6, "area": "1"})
    )
    assert preview["difficulty"] == 8 and preview["score_penalty"] == 1
    assert preview["energy_cost"] == {"transient": 0, "lasting": 1, "participants_lasting": 0}
    assert preview["summary"]["fr"] == "difficulté D8, malus au score 1, coût en énergie : 1 fatigue durable"
    assert preview["summary"]["en"] == "difficulty D8, score penalty 1, energy cost: 1 lasting fatigue"
    # A special power cast as an intervention costs transient fatigue only (L414, L571).
    power = present(SMS.odds({"kind": "spell_builder", "mode": "special_power", "intervention": True}))
    assert power["energy_cost"] == {"transient": 2, "lasting": 0, "participants_lasting": 0}
    assert "2 transient fatigue" in power["summary"]["en"]


def test_it_refuses_to_preview_an_incomplete_spell():
    with pytest.raises(RulesError) as exc:
        SMS.odds({"kind": "spell_builder", "nature": "offensive"})
    assert [e.path for e in exc.value.errors] == ["target_die"]


def test_it_gives_the_energy_cost_with_the_odds_of_a_cast():
    odds = present(SMS.odds({"kind": "cast_spell", "score": 3, "power": 2}))
    assert odds["energy_cost"]["lasting"] == 1
    assert odds["die"] == 6 and odds["success"] == pytest.approx(3 / 6)
