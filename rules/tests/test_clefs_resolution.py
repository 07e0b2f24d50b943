"""Clefs de l'Aube: action resolution (seed L691-L1109; spec §4, §6).

Worked examples TV-S06..S14 and derived vectors D02-D27 of the spec.
TV-S13 (Jonathan): the seed prints "+22" (L1043-L1044), an arithmetic
misprint; 18 − 16 + 18 = 20 is the value tested here (spec G5).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.base import RulesError, ScriptedRandom, SeededRandom
from rules.clefs import SYSTEM, add_critical_die, reevaluate, target_number
from rules.clefs.resolution import multiple_action_handicap, unplanned_action_handicap
from rules.tests.test_clefs_helpers import act


# ---------------------------------------------------------------- worked examples
def test_it_resolves_jerome_success_tv_s06():
    """L773-L781: Me 13 + BC 0 + Pe −1 = CA 12; d20 9 → réussite normale, °R 9."""
    out = act([9], aspect=13, means=-1, skill_nc=10)["outcome"]
    assert out["ca"] == 12
    assert (out["level"], out["dr"], out["de"]) == ("SUCCESS", 9, None)


def test_it_resolves_jerome_failure_tv_s07():
    """L786-L793: CA 13 + 0 − 3 = 10; d20 15 → échec, degré d'échec 5."""
    out = act([15], aspect=13, means=-3, skill_nc=10)["outcome"]
    assert out["ca"] == 10
    assert (out["level"], out["dr"], out["de"]) == ("FAILURE", None, 5)


def test_it_resolves_the_hammer_forced_roll_tv_s08():
    """L808-L813: CA −5, roll forced, a 1 → success with °R = CA = −5 ("Au moins, ça tient!")."""
    res = act([1], aspect=-5, force_roll=True)
    assert res["outcome"]["level"] == "SUCCESS"
    assert res["outcome"]["dr"] == -5
    assert res["success"] is True
    assert res["outcome"]["nd_met"] is True  # no ND set: reading G2


@pytest.mark.parametrize(
    ("d20", "level", "met"),
    [(5, "SUCCESS", False), (6, "SUCCESS", True), (12, "SUCCESS", True), (13, "FAILURE", False)],
)
def test_it_applies_nd_strictly_tv_s09(d20, level, met):
    """L874-L879: CA 12, ND 5, met for d20 in 6..12 ("5 (exclus) et 12 (inclus)")."""
    out = act([d20], aspect=12, nd=5)["outcome"]
    assert (out["level"], out["nd_met"]) == (level, met)


def test_it_counts_remi_failure_as_negative_degree_tv_s10():
    """L893-L900: CA 14, ND −5, d20 17 → failure DE 3; with the GM switch −3 > −5, met."""
    off = act([17], aspect=14, nd=-5)["outcome"]
    assert (off["level"], off["de"], off["nd_met"]) == ("FAILURE", 3, False)
    on = act([17], aspect=14, nd=-5, negative_nd=True)["outcome"]
    assert on["signed_degree"] == -3
    assert on["nd_met"] is True


def test_it_rolls_konrad_with_handicap_and_nd_tv_s11():
    """L970-L987: CA 24 − handicap 5 = 19 (rolled, fails only on 20), ND 10, d20 6 → success, ND not met."""
    out = act([6], aspect=24, handicap=5, nd=10)["outcome"]
    assert out["ca"] == 19 and out["rolled"]
    assert (out["level"], out["dr"], out["nd_met"]) == ("SUCCESS", 6, False)
    assert act([20], aspect=24, handicap=5)["outcome"]["level"] == "FAILURE"


def test_it_resolves_gaston_exceptional_feat_tv_s12():
    """L1017-L1030: CA −18 forced, d10 critical; draws [1, 1, 20, 1] → °R −18 + 21 = +3 > ND −5."""
    res = act([1, 1, 20, 1], aspect=-18, force_roll=True, crit_die=10, nd=-5)
    out = res["outcome"]
    assert out["crit"] == {
        "sides": 10,
        "die": 1,
        "triggered": True,
        "extra": [20, 1],
        "bonus": 21,
        "c": 1,
        "extra_rolls": [20, 1],
        "X": 21,
    }
    assert (out["level"], out["dr"], out["nd_met"]) == ("SUCCESS", 3, True)
    assert "exceptional_feat" in res["tags"]


def test_it_fails_gaston_alternative_twelve_tv_s12():
    """L1028-L1030: "qu'un 12 sur son premier jet, son °R n'aurait été que de (-18+12=)-6" → not > −5."""
    out = act([1, 1, 12], aspect=-18, force_roll=True, crit_die=10, nd=-5)["outcome"]
    assert (out["dr"], out["nd_met"]) == (-6, False)


def test_it_resolves_jonathan_fumble_with_corrected_arithmetic_tv_s13():
    """L1036-L1046: CA 16, d20 18, crit d10 1, extra 18. The seed prints "+22"; 18 − 16 + 18 = 20 (misprint, G5)."""
    res = act([18, 1, 18], aspect=16, crit_die="d10")
    out = res["outcome"]
    assert (out["level"], out["de"]) == ("FAILURE", 20)
    assert out["de"] != 22
    assert "exceptional_fumble" in res["tags"]


def test_it_computes_mireille_multiple_action_handicaps_tv_s14():
    """L1092-L1107: N = 3 → 3, 6, 9; unplanned "éviter un tir" 9 + 5 = 14."""
    assert [multiple_action_handicap(3, i) for i in (1, 2, 3)] == [3, 6, 9]
    assert unplanned_action_handicap(3, 1) == 14


def test_it_reaches_ca_twenty_with_standard_characters_tv_s15():
    """L527-L528 + D02: PH 15 + Pu +5 + disciple BC 0 = 20 → automatic success, no draws."""
    res = act([], aspect=15, means=5, skill_nc=10)
    assert res["outcome"]["level"] == "AUTO_SUCCESS"
    assert res["outcome"]["dr"] is None
    assert res["draws"] == []


# ---------------------------------------------------------------- derived vectors
@pytest.mark.parametrize(
    ("vector", "request_", "draws", "level", "dr", "de"),
    [
        ("D03", {"aspect": 24, "force_roll": True}, [20], "FAILURE", None, -4),
        ("D04", {"aspect": 24, "force_roll": True}, [19], "SUCCESS", 19, None),
        ("D05", {"aspect": 0, "force_roll": True}, [1], "SUCCESS", 0, None),
        ("D06", {"aspect": 1}, [], "AUTO_FAILURE", None, None),
        ("D07a", {"aspect": 1, "force_roll": True}, [1], "SUCCESS", 1, None),
        ("D07b", {"aspect": 1, "force_roll": True}, [2], "FAILURE", None, 1),
        ("D08a", {"aspect": 2}, [2], "SUCCESS", 2, None),
        ("D08b", {"aspect": 2}, [3], "FAILURE", None, 1),
        ("D09", {"aspect": 19}, [20], "FAILURE", None, 1),
        ("D12", {"aspect": 12, "crit_die": 10}, [9, 1, 20, 20, 3], "SUCCESS", 52, None),
        ("D13", {"aspect": 12, "crit_die": 10}, [9, 2], "SUCCESS", 9, None),
        ("D14", {"aspect": 24, "crit_die": 6}, [20, 1, 5], "FAILURE", None, 1),
        ("D15", {"aspect": 24, "crit_die": 10}, [7, 1, 20, 6], "SUCCESS", 33, None),
        ("D16", {"aspect": -18, "crit_die": 10}, [7, 1, 20, 1], "FAILURE", None, 46),
    ],
)
def test_it_matches_spec_derived_vectors(vector, request_, draws, level, dr, de):
    """Spec §6.2 vectors D03-D16 (CA = aspect here)."""
    out = act(draws, **request_)["outcome"]
    assert (out["level"], out["dr"], out["de"]) == (level, dr, de), vector


def test_it_handles_nd_zero_versus_no_nd_d05():
    """D05: °R 0 with no ND → met (G2); explicit ND 0 → 0 > 0 false, not met."""
    assert act([1], aspect=0, force_roll=True)["outcome"]["nd_met"] is True
    assert act([1], aspect=0, force_roll=True, nd=0)["outcome"]["nd_met"] is False


def test_it_meets_nd_ten_at_ca_nineteen_d10():
    out = act([11], aspect=19, nd=10)["outcome"]
    assert (out["level"], out["dr"], out["nd_met"]) == ("SUCCESS", 11, True)


def test_it_cannot_beat_nd_equal_to_ca_without_critical_d11():
    out = act([12], aspect=12, nd=12)["outcome"]
    assert (out["level"], out["nd_met"]) == ("SUCCESS", False)


@pytest.mark.parametrize(("d20", "signed", "met"), [(18, -4, True), (19, -5, False), (20, -6, False)])
def test_it_applies_negative_nd_switch_d17(d20, signed, met):
    out = act([d20], aspect=14, nd=-5, negative_nd=True)["outcome"]
    assert (out["signed_degree"], out["nd_met"]) == (signed, met)


def test_it_keeps_failure_a_failure_without_switch_d18():
    assert act([18], aspect=14, nd=-5)["outcome"]["nd_met"] is False


def test_it_accepts_the_forced_twenty_edge_case_d19():
    """G18: CA 24 forced, a 20 → DE −4, signed +4 > −5 with the switch on."""
    out = act([20], aspect=24, force_roll=True, nd=-5, negative_nd=True)["outcome"]
    assert (out["level"], out["de"], out["nd_met"]) == ("FAILURE", -4, True)


def test_it_uses_the_campaign_negative_nd_default():
    out = act([17], settings={"negative_nd_default": True}, aspect=14, nd=-5)["outcome"]
    assert out["nd_met"] is True


@pytest.mark.parametrize(
    ("vector", "a", "da", "b", "db", "winner"),
    [
        ("D20", 12, [9], 15, [14], "b"),
        ("D21", 12, [9], 10, [15], "a"),
        ("D22", 10, [15], 8, [12], None),
        ("D23", 12, [9], 12, [9], None),
        ("D24", -2, [1], 10, [11], "a"),
    ],
)
def test_it_resolves_confrontations(vector, a, da, b, db, winner):
    """L1068-L1072 and D20-D24; equal °R → no winner (G4). D24: A is forced at CA −2 (°R −2)."""
    rng = ScriptedRandom(da + db)
    res = SYSTEM.resolve({"kind": "confrontation", "a": {"aspect": a}, "b": {"aspect": b}}, rng)
    assert res.outcome["winner"] == winner, vector
    assert res.draws == da + db
    assert rng.remaining == 0


def test_it_leaves_confrontation_autos_unrolled_when_the_gm_says_so():
    rng = ScriptedRandom([])
    res = SYSTEM.resolve(
        {"kind": "confrontation", "a": {"aspect": 22}, "b": {"aspect": 1}}, rng, {"confrontation_force_roll": False}
    )
    assert res.outcome["a"]["level"] == "AUTO_SUCCESS"
    assert res.outcome["winner"] == "a"


@pytest.mark.parametrize(
    ("n", "planned", "unplanned"),
    [(2, [2, 5], [10, 15]), (4, [4, 7, 10, 13], [18, 23]), (1, [0], [5, 10])],
)
def test_it_computes_multiple_action_handicaps_d25_d26(n, planned, unplanned):
    """D25, D26; N = 1 is not a multiple action (G17): 0, then 5 per unplanned action."""
    assert [multiple_action_handicap(n, i) for i in range(1, n + 1)] == planned
    assert [unplanned_action_handicap(n, j) for j in (1, 2)] == unplanned


def test_it_resolves_multiple_actions_on_base_ca_fifteen_d27():
    """D27: N = 3 on CA 15 → 12, 9, 6; the unplanned one CA 1 → automatic failure, no draw."""
    rng = ScriptedRandom([5, 5, 5])
    res = SYSTEM.resolve({"kind": "multiple", "actions": [{"aspect": 15}] * 3, "unplanned": [{"aspect": 15}]}, rng)
    cas = [r["outcome"]["ca"] for r in res.outcome["results"]]
    assert cas == [12, 9, 6, 1]
    assert res.outcome["results"][3]["outcome"]["level"] == "AUTO_FAILURE"
    assert res.draws == [5, 5, 5]


# ---------------------------------------------------------------- target number
def test_it_adds_handicaps_and_advantages_to_ca():
    assert target_number(13, -1, 10) == 12
    assert target_number(13, 0, None, [2, 3], [1]) == 9
    out = act(
        [5], aspect=10, means=2, skill_nc=15, handicaps=[{"value": 3}, {"value": 9, "active": False}], advantage=1
    )["outcome"]
    assert out["ca"] == 10 + 2 + 5 - 3 + 1
    assert out["ca_parts"] == {"aspect": 10, "means": 2, "bc": 5, "handicaps": 3, "advantages": 1}


# ---------------------------------------------------------------- re-evaluation
def test_it_reevaluates_a_difficulty_set_after_the_roll():
    """L903-L911: the GM may decide the ND after seeing °R; no new draws."""
    res = act([9], aspect=12)
    assert res["outcome"]["nd_met"] is True
    hard = reevaluate(res, 10)
    assert hard["draws"] == [9]
    assert hard["outcome"]["dr"] == 9 and hard["outcome"]["nd_met"] is False
    easy = reevaluate(res, 5)
    assert easy["outcome"]["nd_met"] is True
    assert SYSTEM.reevaluate(res, 8)["outcome"]["nd_met"] is True


def test_it_reevaluates_with_the_negative_switch_and_critical():
    res = act([17], aspect=14)
    assert reevaluate(res, -5)["outcome"]["nd_met"] is False
    assert reevaluate(res, -5, negative_nd=True)["outcome"]["nd_met"] is True
    gaston = act([1, 1, 20, 1], aspect=-18, force_roll=True, crit_die=10)
    assert reevaluate(gaston, -5)["outcome"]["nd_met"] is True
    assert reevaluate(gaston, 3)["outcome"]["nd_met"] is False


def test_it_rejects_bad_reevaluation():
    res = act([9], aspect=12)
    with pytest.raises(RulesError):
        reevaluate(res, "hard")  # type: ignore[arg-type]  # a bad value on purpose
    conf = SYSTEM.resolve({"kind": "confrontation", "a": {"aspect": 5}, "b": {"aspect": 5}}, ScriptedRandom([1, 2]))
    with pytest.raises(RulesError):
        reevaluate(conf.to_dict(), 3)


def test_it_rolls_the_critical_die_after_the_normal_result():
    """L1058-L1060: Jonathan's fumble with the critical die requested after his 18."""
    res = act([18], aspect=16)
    later = add_critical_die(res, 10, ScriptedRandom([1, 18]))
    assert later["draws"] == [18, 1, 18]
    assert later["outcome"]["de"] == 20
    with pytest.raises(RulesError):
        add_critical_die(later, 10, ScriptedRandom([2]))


def test_it_rolls_a_critical_die_on_an_automatic_outcome():
    """L998-L1001: the critical die allows a roll at CA ≥ 20."""
    auto = act([], aspect=22)
    later = add_critical_die(auto, "d8", ScriptedRandom([4, 3]))  # type: ignore[arg-type]  # "d8" is read too
    assert later["draws"] == [4, 3]
    assert later["outcome"]["level"] == "SUCCESS"


def test_it_replays_any_resolution_from_its_draws():
    for seed in range(50):
        request = {"kind": "action", "aspect": 8 + seed % 7, "means": 1, "crit_die": 6, "nd": 3}
        first = SYSTEM.resolve(request, SeededRandom(seed))
        again = SYSTEM.resolve(request, ScriptedRandom(first.draws))
        assert again.to_dict() == first.to_dict()


def test_it_uses_the_campaign_default_critical_die():
    res = act([9, 3], settings={"default_crit_die": "d10"}, aspect=12)
    assert res["outcome"]["crit"]["sides"] == 10
    none = act([9], settings={"default_crit_die": "d10"}, aspect=12, crit_die="none")
    assert none["outcome"]["crit"] is None


def test_it_resolves_overreach_as_far_as_the_text_goes():
    """L1111-L1134: Diff used as the roll's ND, Eff only recorded (the seed stops there)."""
    res = SYSTEM.resolve({"kind": "overreach", "aspect": 12, "diff": 5, "eff": 7}, ScriptedRandom([6]))
    assert res.outcome["nd"] == 5 and res.outcome["nd_met"] is True
    assert res.outcome["overreach"] == {"diff": 5, "eff": 7, "rules_complete": False}
    assert reevaluate(res, 8)["outcome"]["overreach"]["eff"] == 7


def test_it_builds_a_request_from_a_sheet():
    from rules.tests.test_clefs_helpers import marie_pierre_sheet

    sheet = marie_pierre_sheet()
    res = SYSTEM.resolve(
        {"kind": "action", "sheet": sheet, "aspect_code": "Mt", "means_code": "PR", "skill_name": "alchimie"},
        ScriptedRandom([4]),
    )
    assert res.inputs["aspect"] == 17 and res.inputs["means"] == 2 and res.inputs["skill_nc"] == 10
    assert res.outcome["ca"] == 19


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("request_", "path", "code"),
    [
        ({"kind": "action"}, "aspect", "required"),
        ({"kind": "action", "aspect": "x"}, "aspect", "invalid_int"),
        ({"kind": "action", "aspect": True}, "aspect", "invalid_int"),
        ({"kind": "action", "aspect": 10, "skill_nc": 21}, "skill_nc", "out_of_range"),
        ({"kind": "action", "aspect": 10, "crit_die": "d7"}, "crit_die", "invalid_crit_die"),
        ({"kind": "action", "aspect": 10, "handicap": -2}, "handicap", "out_of_range"),
        ({"kind": "action", "aspect": 10, "force_roll": "maybe"}, "force_roll", "invalid_bool"),
        ({"kind": "nope", "aspect": 10}, "kind", "unsupported"),
        ({"kind": "confrontation", "a": {"aspect": 3}}, "b.aspect", "required"),
        ({"kind": "multiple", "actions": []}, "actions", "invalid_list"),
        ({"kind": "overreach", "aspect": 3, "eff": -1}, "eff", "out_of_range"),
    ],
)
def test_it_rejects_bad_requests(request_, path, code):
    with pytest.raises(RulesError) as info:
        SYSTEM.resolve(request_, ScriptedRandom([1, 1, 1]))
    assert (path, code) in [(e.path, e.code) for e in info.value.errors]
    assert all(e.message.fr and e.message.en for e in info.value.errors)


def test_it_hides_a_hidden_nd_from_the_summary():
    res = act([9], aspect=12, nd=5, nd_hidden=True)
    assert "ND" not in res["summary"]["fr"]
    assert res["outcome"]["nd_met"] is True


def test_it_accepts_spec_input_names():
    """Spec §4.12 names ``crit_die_sides`` and ``negative_nd_converts_failure`` are aliases."""
    out = act([18, 1, 18], aspect=16, crit_die_sides=10)["outcome"]
    assert (out["r"], out["de"], out["crit"]["X"]) == (18, 20, 18)
    out = act([17], aspect=14, nd=-5, negative_nd_converts_failure=True)["outcome"]
    assert out["nd_met"] is True


_junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-300, 300),
    st.text(max_size=5),
    st.lists(st.integers(-5, 30), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "aspect",
                "means",
                "skill_nc",
                "handicap",
                "handicaps",
                "advantage",
                "crit_die",
                "nd",
                "force_roll",
                "negative_nd",
                "nd_hidden",
                "skill_name",
                "a",
                "b",
                "actions",
            ]
        ),
        _junk,
        max_size=8,
    ),
    st.sampled_from(["action", "confrontation", "multiple", "overreach"]),
)
def test_it_only_raises_rules_errors_on_junk(request_, kind):
    """Fuzz: any malformed request is refused with field errors, never a crash."""
    try:
        SYSTEM.resolve({"kind": kind, **request_}, SeededRandom(1))
        SYSTEM.odds({"kind": kind, **request_})
    except RulesError as exc:
        assert exc.errors


def test_a_triggered_critical_die_is_named_as_the_text_names_it():
    """Issue #19 item 4 / #15 item 6: L1015 "prouesse exceptionnelle", L1034 "Maladresse exceptionnelle"."""
    from rules import get_system
    from rules.base import ScriptedRandom

    system = get_system("clefs-de-l-aube")
    # Jonathan (L1036-L1046): CA 16, d20 18, critical d10 1, reroll 18 -> degree of failure 22.
    jonathan = system.resolve({"kind": "action", "aspect": 16, "crit_die": 10}, ScriptedRandom([18, 1, 18]))
    assert jonathan.outcome["de"] == 20 and "exceptional_fumble" in jonathan.tags
    assert "maladresse exceptionnelle" in jonathan.summary.fr and "échec normal" not in jonathan.summary.fr
    assert "exceptional fumble" in jonathan.summary.en
    feat = system.resolve({"kind": "action", "aspect": 10, "crit_die": 10}, ScriptedRandom([5, 1, 7]))
    assert "prouesse exceptionnelle" in feat.summary.fr and "réussite normale" not in feat.summary.fr
    plain = system.resolve({"kind": "action", "aspect": 10, "crit_die": 10}, ScriptedRandom([5, 4]))
    assert "réussite normale" in plain.summary.fr
