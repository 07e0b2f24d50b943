"""Dice nobody can fake (issue 22): committed seeds, player nonces, proofs, tampering, verifiers."""

from __future__ import annotations

import base64
import copy
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.urls import reverse

from campaigns import checkpoints, dice, services
from campaigns.models import Roll, RollSeed
from conftest import make_table
from rules import fair
from tools import verify_rolls

pytestmark = pytest.mark.django_db
NONCE = "a" * 32
ROOT = Path(__file__).resolve().parents[2]

SYSTEM_TESTS = {
    "ambre": {"kind": "comparison", "a_value": 3, "b_value": 5},
    "clefs-de-l-aube": {"kind": "action", "aspect": 3, "means": 2, "skill_nc": 12},
    "sms": {"kind": "action", "score": 3, "die": 6},
    "altaride": {"kind": "test", "target": 12},
}


def _scene(system: str = "altaride", prefix: str = "fd") -> tuple[Any, Any]:
    table = make_table(system, prefix=prefix)
    thread = services.create_thread(table.gm, table.campaign.boards.first(), title="Scène", body="Début")
    return table, thread


def _roll(table: Any, thread: Any, request: dict[str, Any], nonce: str | None = NONCE, user: Any = None) -> Roll:
    # A test typed in full is the GM's (a player's tests are built from the sheet, issue 15).
    author = user or (table.gm if "system_test" in request else table.player)
    post = services.create_post(author, thread, body="Jet", roll_requests=[request], client_nonce=nonce)
    return post.rolls.get()


def _export(table: Any, user: Any = None) -> dict[str, Any]:
    return checkpoints.export_document(user or table.player, table.campaign)


# ---------------------------------------------------------------------------
# The stream itself (rules.fair: pure)
# ---------------------------------------------------------------------------
def test_the_stream_has_no_modulo_bias() -> None:
    """Chi-square over 60,000 draws of a fixed seed, for dice whose size does not divide 2**32."""
    seed = "11" * 32
    for faces, draws in ((6, 60000), (20, 60000), (100, 60000), (7, 42000)):
        rng = fair.HmacRandom(seed, "bias-test-nonce-0001", faces, fair.request_digest({"n": faces}))
        counts = Counter(rng.randint(1, faces) for _ in range(draws))
        assert set(counts) == set(range(1, faces + 1))
        expected = draws / faces
        chi2 = sum((counts[f] - expected) ** 2 / expected for f in range(1, faces + 1))
        # 99.9th percentile of chi-square with faces-1 degrees of freedom
        critical = {6: 20.52, 20: 43.82, 100: 148.23, 7: 22.46}[faces]
        assert chi2 < critical, (faces, chi2)


def test_words_past_the_last_full_range_are_rejected() -> None:
    """Rejection sampling: a word at or above 2**32 - 2**32 % n is skipped, never folded onto small faces."""
    rng = fair.HmacRandom("22" * 32, "reject-test-nonce-01", 1, "0" * 64)
    limit = fair.WORD - fair.WORD % 6
    rng._words = [limit, limit + 3, fair.WORD - 1, 10]
    assert rng.randint(1, 6) == 1 + 10 % 6
    assert rng.dice == [[1, 6, 5]]


def test_canonical_json_is_stable() -> None:
    assert (
        fair.canonical_json({"b": 1.0, "a": [True, None, "é\n"], "c": 0.25})
        == '{"a":[true,null,"é\\n"],"b":1,"c":0.25}'
    )
    assert fair.canonical_json({"x": 1e-05}) == '{"x":1e-05}'


# ---------------------------------------------------------------------------
# Recomputing stored rolls
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("system", sorted(SYSTEM_TESTS))
def test_each_system_test_is_recomputed_from_seed_nonce_and_request(system: str) -> None:
    table, thread = _scene(system, prefix=f"rc{system[:3]}")
    roll = _roll(table, thread, {"system_test": SYSTEM_TESTS[system]})
    proof = roll.fair
    assert proof["nonce"] == NONCE and proof["nonce_by"] == "client"
    seed = RollSeed.objects.get(campaign=table.campaign, index=proof["seed"])
    assert proof["commitment"] == seed.commitment == fair.commitment(seed.seed)
    assert proof["request_digest"] == fair.request_digest(roll.request)
    values = fair.recompute(seed.seed, NONCE, roll.sequence, proof["request_digest"], proof["dice"])
    assert values == [d[2] for d in proof["dice"]] == roll.resolution["draws"]
    # The rules, replayed on the same stream, give the very same stored resolution.
    again = dice.resolve_request(
        table.campaign,
        {"system_test": SYSTEM_TESTS[system]},
        rng=fair.HmacRandom(seed.seed, NONCE, roll.sequence, proof["request_digest"]),
    )
    assert again["resolution"] == roll.resolution
    assert dice.verify_chain(table.campaign) == (True, [])


@pytest.mark.parametrize("expression", ["1d20", "4d6kh3+2", "3d10"])
def test_a_dice_expression_is_recomputed(expression: str) -> None:
    table, thread = _scene(prefix="rcx")
    roll = _roll(table, thread, {"expression": expression})
    seed = RollSeed.objects.get(pk=roll.roll_seed_id)
    values = fair.recompute(seed.seed, NONCE, roll.sequence, roll.fair["request_digest"], roll.fair["dice"])
    assert values == roll.resolution["draws"]
    again = dice.resolve_request(
        table.campaign,
        {"expression": expression},
        rng=fair.HmacRandom(seed.seed, NONCE, roll.sequence, roll.fair["request_digest"]),
    )
    assert again["resolution"]["outcome"] == roll.resolution["outcome"]


def test_the_client_nonce_changes_the_outcome_and_a_missing_one_is_marked() -> None:
    table, thread = _scene(prefix="nonce")
    seed = dice.current_seed(table.campaign)
    digest = fair.request_digest({"expression": "10d20"})
    streams = {n: fair.recompute(seed.seed, n, 1, digest, [[1, 20, 0]] * 10) for n in ("x" * 16, "y" * 16)}
    assert streams["x" * 16] != streams["y" * 16]
    roll = _roll(table, thread, {"expression": "10d20"}, nonce="x" * 16)
    assert roll.resolution["draws"] == streams["x" * 16]
    no_nonce = _roll(table, thread, {"expression": "1d20"}, nonce=None)
    assert no_nonce.fair["nonce_by"] == "server" and len(no_nonce.fair["nonce"]) == 32
    assert dice.verify_chain(table.campaign) == (True, [])
    with pytest.raises(ValidationError) as exc:
        _roll(table, thread, {"expression": "1d20"}, nonce="short")
    assert "client_nonce" in exc.value.message_dict
    assert Roll.objects.filter(campaign=table.campaign).count() == 2


def test_the_commitment_is_published_before_the_roll_and_rotation_reveals_it() -> None:
    table, thread = _scene(prefix="rot")
    made = services.create_campaign(table.gm, title="Neuve", system="sms")
    assert RollSeed.objects.filter(campaign=made, index=1, revealed_at__isnull=True).count() == 1
    first = dice.current_seed(table.campaign)  # what the first page of the campaign publishes
    page = dice.chain_head(table.campaign)
    assert page["commitment"] == first.commitment and page["sequence"] == 0
    roll = _roll(table, thread, {"expression": "1d6"})
    assert roll.fair["commitment"] == first.commitment and roll.roll_seed_id == first.pk
    # Nobody sees the seed before its reveal.
    assert _export(table)["seeds"][0]["seed"] is None
    with pytest.raises(PermissionDenied):
        services.rotate_roll_seed(table.player, table.campaign)
    services.close_session(table.gm, services.open_session(table.gm, table.campaign, title="Séance 1"))
    first.refresh_from_db()
    assert first.revealed_at is not None
    seeds = _export(table)["seeds"]
    assert seeds[0]["seed"] == first.seed and seeds[1]["seed"] is None and seeds[1]["index"] == 2
    later = _roll(table, thread, {"expression": "1d6"})
    assert later.fair["seed"] == 2
    revealed, current = services.rotate_roll_seed(table.gm, table.campaign)  # the GM's request
    assert (revealed.index, current.index) == (2, 3)
    with pytest.raises(ValidationError):  # nothing was drawn from seed 3 yet: nothing to reveal
        services.rotate_roll_seed(table.gm, table.campaign)
    assert dice.verify_chain(table.campaign) == (True, [])


def test_fair_source_needs_a_transaction_and_one_roll_at_a_time() -> None:
    table, _thread = _scene(prefix="txn")
    with transaction.atomic():
        first = dice.fair_source(table.campaign, {"a": 1}, client_nonce=NONCE)
        second = dice.fair_source(table.campaign, {"a": 2}, client_nonce=NONCE)
        first.randint(1, 6)
        with pytest.raises(RuntimeError):
            dice.record_roll(
                table.campaign,
                roller=table.gm,
                kind="combat",
                system="x",
                request={"b": 1},
                resolution={},
                source=first,
            )
        dice.record_roll(
            table.campaign, roller=table.gm, kind="combat", system="x", request={"a": 1}, resolution={}, source=first
        )
        with pytest.raises(RuntimeError):
            dice.record_roll(
                table.campaign,
                roller=table.gm,
                kind="combat",
                system="x",
                request={"a": 2},
                resolution={},
                source=second,
            )


def test_a_caller_that_draws_through_fair_source_is_proven_without_passing_it() -> None:
    """How combat and creation rolls switch over: fair_source(), draw, then record_roll() as before."""
    table, _thread = _scene(prefix="impl")
    request = {"combat_step": {"encounter": 1, "step": 0}}
    with transaction.atomic():
        rng = dice.fair_source(table.campaign, request, client_nonce=NONCE)
        draws = [rng.randint(1, 10), rng.randint(1, 10)]
        roll = dice.record_roll(
            table.campaign, roller=table.gm, kind="combat", system="sms", request=request, resolution={"draws": draws}
        )
    assert roll.fair["nonce"] == NONCE and [d[2] for d in roll.fair["dice"]] == draws
    assert dice.verify_chain(table.campaign) == (True, [])
    # A roll drawn elsewhere (not from the committed seed) is flagged.
    dice.record_roll(
        table.campaign, roller=table.gm, kind="combat", system="sms", request={}, resolution={"draws": [3]}
    )
    ok, problems = dice.verify_chain(table.campaign)
    assert not ok and problems == ["roll #2: dice not drawn from a committed seed"]


def test_derived_rolls_must_show_the_dice_they_re_read() -> None:
    table, thread = _scene(prefix="der")
    roll = _roll(table, thread, {"system_test": {"kind": "test", "target": 12}})
    dice.record_roll(
        table.campaign,
        roller=table.gm,
        kind="system",
        system="altaride",
        request={"reevaluate": {"sequence": 1}},
        resolution={"draws": roll.resolution["draws"]},
        derived_from=1,
    )
    assert dice.verify_chain(table.campaign) == (True, [])
    dice.record_roll(
        table.campaign,
        roller=table.gm,
        kind="system",
        system="altaride",
        request={"reevaluate": {"sequence": 1}},
        resolution={"draws": [99]},
        derived_from=1,
    )
    assert dice.verify_chain(table.campaign)[1] == ["roll #3: its dice differ from those of roll #1"]


# ---------------------------------------------------------------------------
# Tampering
# ---------------------------------------------------------------------------
def _three_rolls(prefix: str) -> tuple[Any, Any]:
    table, thread = _scene(prefix=prefix)
    for expression in ("1d20", "2d6", "1d8"):
        _roll(table, thread, {"expression": expression})
    return table, thread


@pytest.mark.parametrize(
    "field,value",
    [
        ("resolution", {"draws": [20], "outcome": {"total": 20}}),
        ("request", {"expression": "1d4"}),
        ("label", "x"),
        ("secret", True),
        ("roller_id", None),
        ("fair", {"v": 1}),
        ("salt", "0" * 32),
    ],
)
def test_changing_any_stored_field_is_caught(field: str, value: Any) -> None:
    table, _thread = _three_rolls(f"tf{field[:3]}")
    Roll._base_manager.filter(campaign=table.campaign, sequence=2).update(**{field: value})
    ok, problems = dice.verify_chain(table.campaign)
    assert not ok and any(p.startswith("roll #2") for p in problems)


def test_a_server_that_picks_other_dice_and_rehashes_is_caught_by_the_seed() -> None:
    """The server rewrites a roll's dice and recomputes every hash: the revealed seed gives other dice."""
    table, _thread = _three_rolls("rehash")
    roll = Roll.objects.get(campaign=table.campaign, sequence=3)
    forged = copy.deepcopy(roll.fair)
    forged["dice"][0][2] = forged["dice"][0][2] % 8 + 1
    _rewrite_from(
        table.campaign, 3, lambda r: {"fair": forged, "resolution": {**r.resolution, "draws": [forged["dice"][0][2]]}}
    )
    ok, problems = dice.verify_chain(table.campaign)
    assert not ok
    assert problems[0] == "roll #3: the dice are not those of the seed, nonce and request"


def _rewrite_from(campaign: Any, sequence: int, change: Any) -> None:
    """What an attacker with the database does: change roll n and recompute every later hash."""
    prev = Roll.objects.get(campaign=campaign, sequence=sequence - 1).hash if sequence > 1 else dice.GENESIS
    for roll in Roll.objects.filter(campaign=campaign, sequence__gte=sequence).order_by("sequence"):
        if roll.sequence == sequence:
            for key, val in change(roll).items():
                setattr(roll, key, val)
        roll.prev_hash = prev
        roll.hash = dice.chain_hash(prev, dice.content_digest(roll))
        Roll._base_manager.filter(pk=roll.pk).update(
            fair=roll.fair, resolution=roll.resolution, label=roll.label, prev_hash=roll.prev_hash, hash=roll.hash
        )
        prev = roll.hash


def test_every_tampering_of_an_export_is_caught_by_the_stand_alone_verifier() -> None:
    table, thread = _three_rolls("exp")
    services.close_session(table.gm, services.open_session(table.gm, table.campaign, title="S"))
    data = _export(table)
    report = verify_rolls.verify(data)
    assert report.problems == [] and report.stats["recomputed"] == 3
    assert dice.verify_export(data["rolls"], data["seeds"]) == (True, [])

    def broken(mutate: Any) -> list[str]:
        copy_ = copy.deepcopy(data)
        mutate(copy_)
        return [text for _seq, text in sorted(verify_rolls.verify(copy_).problems, key=lambda p: p[0])]

    assert broken(lambda d: d["rolls"][1]["content"].update(label="x"))[0].startswith("roll #2: the content shown")
    edited = broken(lambda d: d["rolls"][1].update(canonical=d["rolls"][1]["canonical"].replace('"2d6"', '"2d8"')))
    assert "roll #2: does not match its hash (altered)" in edited
    assert broken(lambda d: d["rolls"].pop(1))[0].startswith("roll #3: found where roll #2 should be")
    assert broken(lambda d: d["rolls"].reverse())[0].startswith("roll #1: found where roll #3")  # reordered
    assert broken(lambda d: d["seeds"][0].update(seed="33" * 32)) != []
    assert broken(lambda d: d["rolls"][2]["fair"].update(nonce="b" * 32))[0].startswith("roll #3")
    assert broken(lambda d: d["checkpoint"].update(signature=base64.b64encode(b"0" * 64).decode()))[0].endswith(
        "has a signature that does not verify"
    )
    # Rewriting with recomputed hashes: only a witnessed head or a kept checkpoint catches it.
    kept = checkpoints.checkpoint(table.campaign)
    head = (3, data["rolls"][2]["hash"])
    _rewrite_from(table.campaign, 2, lambda r: {"label": "réécrit"})
    rewritten = _export(table)
    assert verify_rolls.verify(rewritten).problems == []  # self-consistent...
    by_head = verify_rolls.verify(rewritten, heads=[head]).problems
    assert by_head == [(3, "roll #3: the chain was rewritten since you saw this head")]
    by_checkpoint = verify_rolls.verify(rewritten, checkpoints=[kept]).problems
    assert by_checkpoint == [(3, "roll #3: the chain differs from the signed checkpoint")]
    # A forged checkpoint for the rewritten chain is not signed by the site's key.
    forged = copy.deepcopy(kept)
    forged["checkpoint"]["head"] = rewritten["rolls"][2]["hash"]
    assert verify_rolls.verify(rewritten, checkpoints=[forged]).problems == [
        (3, "roll #3: the checkpoint has a signature that does not verify")
    ]
    assert thread


def test_the_script_runs_on_a_real_export_and_fails_on_tampering(tmp_path: Path) -> None:
    table, _thread = _three_rolls("cli")
    services.close_session(table.gm, services.open_session(table.gm, table.campaign, title="S"))
    data = _export(table)
    good = tmp_path / "export.json"
    good.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "verify_rolls.py"), str(good)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 recomputed" in run.stdout and run.stdout.strip().endswith("agree.")
    data["rolls"][0]["fair"]["dice"][0][2] = data["rolls"][0]["fair"]["dice"][0][2] % 20 + 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "verify_rolls.py"), str(bad)], capture_output=True, text=True
    )
    assert run.returncode == 1 and "FIRST DISCREPANCY: roll #1" in run.stdout


def test_a_total_that_is_not_the_one_its_dice_give_is_caught(tmp_path: Path) -> None:
    """Right dice, forged total (hashes recomputed): the server's check and the script's --replay catch it."""
    table, _thread = _three_rolls("tot")
    services.rotate_roll_seed(table.gm, table.campaign)
    _rewrite_from(
        table.campaign,
        2,
        lambda r: {"resolution": {**r.resolution, "outcome": {**r.resolution["outcome"], "total": 12}}}
        if r.resolution["outcome"]["total"] != 12
        else {"resolution": {**r.resolution, "outcome": {**r.resolution["outcome"], "total": 11}}},
    )
    assert dice.verify_chain(table.campaign)[1] == ["roll #2: the total is not the one its dice give"]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(_export(table)), encoding="utf-8")
    script = [sys.executable, str(ROOT / "tools" / "verify_rolls.py"), str(path)]
    assert subprocess.run(script, capture_output=True, text=True).returncode == 0  # dice alone are right
    run = subprocess.run([*script, "--replay"], capture_output=True, text=True)
    assert run.returncode == 1 and "FIRST DISCREPANCY: roll #2: the total is not the one its dice give" in run.stdout


# ---------------------------------------------------------------------------
# Secret rolls
# ---------------------------------------------------------------------------
def test_secret_rolls_reveal_nothing_before_the_seed_and_only_dice_after() -> None:
    table, thread = _scene(prefix="sec")
    secret = _roll(table, thread, {"expression": "1d100", "label": "Piège caché", "secret": True}, user=table.gm)
    _roll(table, thread, {"expression": "1d6"})
    before = _export(table, table.player)
    row = before["rolls"][0]
    assert set(row) == {"sequence", "prev_hash", "hash", "body_digest", "proof_digest"}
    assert "Piège" not in json.dumps(before, ensure_ascii=False)
    assert verify_rolls.verify(before).problems == []
    services.rotate_roll_seed(table.gm, table.campaign)
    after = _export(table, table.player)
    row = after["rolls"][0]
    assert set(row) == {"sequence", "prev_hash", "hash", "body_digest", "fair"}
    assert [d[2] for d in row["fair"]["dice"]] == secret.resolution["draws"]
    text = json.dumps(row, ensure_ascii=False)
    assert "Piège" not in text and "1d100" not in text and "label" not in text
    report = verify_rolls.verify(after)
    assert report.problems == [] and report.stats["recomputed"] == 2
    # The GM sees the content of their own secret roll.
    assert "Piège" in json.dumps(_export(table, table.gm), ensure_ascii=False)


# ---------------------------------------------------------------------------
# Pages, API, command
# ---------------------------------------------------------------------------
def test_pages_show_the_served_head_and_the_key_is_well_known(client: Any) -> None:
    table, thread = _scene(prefix="pg")
    roll = _roll(table, thread, {"expression": "1d6"})
    client.force_login(table.player2)
    html = client.get(reverse("campaigns:thread", kwargs={"thread_id": thread.pk})).content.decode()
    assert f'data-hash="{roll.hash}"' in html and 'data-sequence="1"' in html
    assert "js/rolls.js" in html and "data-roll-nonce" in html
    key = client.get("/.well-known/tablee-rolls-key").json()
    assert key["algorithm"] == "Ed25519" and len(base64.b64decode(key["public_key"])) == 32
    cp = client.get(reverse("campaigns:rolls_checkpoint", args=[table.campaign.slug]))
    assert "attachment" in cp["Content-Disposition"]
    doc = cp.json()
    assert doc["checkpoint"]["head"] == roll.hash and doc["public_key"] == key["public_key"]
    assert verify_rolls.check_signature(doc, key["public_key"]) is None
    page = client.get(reverse("campaigns:rolls_verify", args=[table.campaign.slug])).content.decode()
    assert "Vérifier dans mon navigateur" in page and "data-rolls-verifier" in page
    assert "Révéler la graine" not in page  # players have no rotate button
    client.force_login(table.outsider)
    assert client.get(reverse("campaigns:rolls_checkpoint", args=[table.campaign.slug])).status_code == 404


def test_the_verify_page_explains_the_scheme_in_english_too(client: Any) -> None:
    table, thread = _scene(prefix="en")
    _roll(table, thread, {"expression": "1d6"})
    client.force_login(table.gm)
    table.gm.profile.language = "en"
    table.gm.profile.save()
    page = client.get(reverse("campaigns:rolls_verify", args=[table.campaign.slug])).content.decode()
    assert "How nobody can fake a roll, not even the server" in page
    assert "Reveal the current seed now" in page and "Verify in my browser" in page
    assert "graine" not in page and "Vérifi" not in page
    table.gm.profile.language = "fr"
    table.gm.profile.save()
    page = client.get(reverse("campaigns:rolls_verify", args=[table.campaign.slug])).content.decode()
    assert "Pourquoi personne ne peut truquer un jet, pas même le serveur" in page


def test_the_server_check_speaks_french_on_a_french_page(client: Any) -> None:
    table, _thread = _three_rolls("frp")
    Roll._base_manager.filter(campaign=table.campaign, sequence=2).update(label="x")
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM campaigns_roll WHERE sequence = 3 AND campaign_id = %s", [table.campaign.pk])
    client.force_login(table.player)
    page = client.get(reverse("campaigns:rolls_verify", args=[table.campaign.slug])).content.decode()
    assert "le jet n° 2 ne correspond pas à son empreinte (modifié)." in page
    assert "does not match" not in page


def test_the_post_form_nonce_reaches_the_roll(client: Any) -> None:
    table, thread = _scene(prefix="form")
    client.force_login(table.player)
    response = client.post(
        reverse("campaigns:thread_reply", args=[thread.pk]),
        {"body": "Jet", "visibility": "public", "rolls": "1d20", "client_nonce": "f" * 32},
    )
    assert response.status_code == 302
    assert Roll.objects.get(campaign=table.campaign).fair["nonce"] == "f" * 32


def test_the_api_takes_a_client_nonce_and_rotates_for_gms(client: Any) -> None:
    table, thread = _scene(prefix="api")
    client.force_login(table.player)
    url = reverse("api:posts", args=[thread.pk])
    response = client.post(
        url,
        {"body": "Jet", "roll_requests": [{"expression": "1d20"}], "client_nonce": "c" * 24},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    assert Roll.objects.get(campaign=table.campaign).fair["nonce"] == "c" * 24
    bad = client.post(url, {"body": "Jet", "client_nonce": "bad nonce!"}, content_type="application/json")
    assert bad.status_code == 400 and [e["field"] for e in bad.json()["errors"]] == ["client_nonce"]
    rotate = reverse("api:roll-rotate", args=[table.campaign.slug])
    assert client.post(rotate).status_code == 403
    client.force_login(table.gm)
    body = client.post(rotate).json()
    assert body["revealed"]["index"] == 1 and body["current"]["index"] == 2
    export = client.get(reverse("api:roll-export", args=[table.campaign.slug])).json()
    assert verify_rolls.verify(export).stats["recomputed"] == 1


def test_the_gm_rotates_from_the_verify_page(client: Any) -> None:
    table, thread = _scene(prefix="btn")
    _roll(table, thread, {"expression": "1d6"})
    client.force_login(table.gm)
    page = client.get(reverse("campaigns:rolls_verify", args=[table.campaign.slug])).content.decode()
    assert "Révéler la graine actuelle maintenant" in page
    response = client.post(reverse("campaigns:rolls_rotate", args=[table.campaign.slug]), follow=True)
    assert "Graine n° 1 révélée" in response.content.decode()
    assert RollSeed.objects.filter(campaign=table.campaign, revealed_at__isnull=False).count() == 1
    client.force_login(table.player)
    client.post(reverse("campaigns:rolls_rotate", args=[table.campaign.slug]))
    assert RollSeed.objects.filter(campaign=table.campaign).count() == 2


def test_the_command_recomputes_the_dice(capsys: Any) -> None:
    from django.core.management import call_command
    from django.core.management.base import CommandError

    table, _thread = _three_rolls("cmd")
    call_command("verify_rolls", table.campaign.slug)
    assert "OK" in capsys.readouterr().out
    seed = dice.current_seed(table.campaign)
    with connection.cursor() as cursor:  # a database edit of the secret seed
        cursor.execute("UPDATE campaigns_rollseed SET seed = %s WHERE id = %s", ["44" * 32, seed.pk])
    with pytest.raises(CommandError):
        call_command("verify_rolls", table.campaign.slug)
    assert "does not match its commitment" in capsys.readouterr().out


def test_the_signing_key_comes_from_the_environment_a_file_or_the_secret_key(tmp_path: Path, settings: Any) -> None:
    checkpoints._private_key.cache_clear()
    try:
        settings.TABLEE_ROLLS_SIGNING_KEY = "07" * 32
        configured = checkpoints.public_key_bytes()
        checkpoints._private_key.cache_clear()
        settings.TABLEE_ROLLS_SIGNING_KEY = ""
        settings.TABLEE_DATA_DIR = tmp_path / "data"
        generated = checkpoints.public_key_bytes()
        key_file = tmp_path / "data" / checkpoints.KEY_FILE
        assert key_file.exists() and oct(key_file.stat().st_mode & 0o777) == "0o600"
        checkpoints._private_key.cache_clear()
        assert checkpoints.public_key_bytes() == generated != configured  # read back, not regenerated
        checkpoints._private_key.cache_clear()
        blocked = tmp_path / "not-a-directory"  # cannot hold a data directory, even for root
        blocked.write_text("")
        settings.TABLEE_DATA_DIR = blocked / "data"
        derived = checkpoints.public_key_bytes()
        assert derived not in (generated, configured)
        checkpoints._private_key.cache_clear()
        assert checkpoints.public_key_bytes() == derived  # stable: every process derives the same key
    finally:
        checkpoints._private_key.cache_clear()
