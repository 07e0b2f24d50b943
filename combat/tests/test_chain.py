"""Every combat draw is a chained roll of the campaign; an undone step's roll stays in the chain."""

from __future__ import annotations

from campaigns.dice import verify_chain
from campaigns.models import Roll
from combat import dice as combat_dice
from combat import services
from combat.models import LogEntry
from combat.tests.test_dice_fight import duel  # noqa: F401  (fixture)
from rules.base import SeededRandom


def _declare(t, aldric, brigand):
    services.declare_action(t.player, aldric, data={"action": "attack", "skill": "epee", "damage_x": 3}, target=brigand)
    services.declare_action(t.gm, brigand, data={"action": "attack", "skill": "epee", "damage_x": 2}, target=aldric)


def test_every_combat_draw_grows_the_chain_and_an_undone_roll_stays(duel):  # noqa: F811
    t, encounter, aldric, brigand = duel
    services.start_encounter(t.gm, encounter)
    _declare(t, aldric, brigand)
    before = Roll.objects.filter(campaign=t.campaign).count()
    services.reveal_declarations(t.gm, encounter, rng=SeededRandom(3))
    initiative = LogEntry.objects.get(encounter=encounter, kind=LogEntry.Kind.INITIATIVE)
    assert initiative.roll is not None and initiative.roll.kind == "combat"
    assert initiative.roll.resolution["draws"] == initiative.detail["draws"]
    after_initiative = Roll.objects.filter(campaign=t.campaign).count()
    assert after_initiative == before + 1

    step = services.resolve_next_step(t.gm, encounter, rng=SeededRandom(4))
    assert step.roll is not None
    assert step.roll.resolution["draws"] == step.detail["draws"] and step.roll.resolution["draws"]
    assert Roll.objects.filter(campaign=t.campaign).count() == after_initiative + 1

    services.undo_last_step(t.gm, encounter)
    # The undone roll stays in the chain, marked undone.
    assert Roll.objects.filter(pk=step.roll_id).exists()
    assert combat_dice.undone_roll_ids(t.campaign) == {step.roll_id}
    again = services.resolve_next_step(t.gm, encounter, rng=SeededRandom(5))
    assert again.roll_id != step.roll_id
    assert Roll.objects.filter(campaign=t.campaign).count() == after_initiative + 2
    assert again.roll.sequence == step.roll.sequence + 1
    ok, problems = verify_chain(t.campaign)
    assert ok, problems


def test_combat_dice_come_from_the_campaigns_fair_source(duel):  # noqa: F811
    t, encounter, aldric, brigand = duel
    services.start_encounter(t.gm, encounter)
    _declare(t, aldric, brigand)
    services.reveal_declarations(t.gm, encounter)  # no test source: the campaign's committed seed
    roll = LogEntry.objects.get(encounter=encounter, kind=LogEntry.Kind.INITIATIVE).roll
    assert roll is not None and roll.fair.get("commitment") and roll.fair["dice"]
    assert [d[2] for d in roll.fair["dice"]] == roll.resolution["draws"]
    ok, problems = verify_chain(t.campaign)
    assert ok, problems
