"""Rolling dice for posts, storing rolls immutably, the hash chain, and provably fair draws.

Every roll (*jet*) of a campaign gets the next ``sequence`` number and is
chained to the previous one::

    body_digest    = sha256(canonical JSON of the roll's content + "|" + salt)
    content_digest = body_digest                                    (rolls without a proof)
                   = sha256("v2:" + body_digest + ":" + sha256(canonical_json(fair)))  (with one)
    hash           = sha256(prev_hash + ":" + content_digest)

The first roll's ``prev_hash`` is :data:`GENESIS`. Altering any stored field,
removing a roll or inserting one breaks the chain, which :func:`verify_chain`
detects. The export (:func:`export_chain`) shows a secret roll only by its
digests (the random ``salt`` keeps them from being brute-forced back to the
content); once the seed it was drawn from is revealed, also its fairness proof
(nonce, request digest, dice), never its content.

Fair draws (:mod:`rules.fair`): every draw comes from :func:`fair_source`, a
stream keyed by the campaign's committed seed (:class:`campaigns.models.RollSeed`,
commitment published before use, seed revealed at rotation) and mixed with the
roller's nonce, the roll's sequence and its request, so neither the server nor
the player alone chooses an outcome. The contract for callers (posts, combat,
creation rolls)::

    with transaction.atomic():
        rng = dice.fair_source(campaign, request, client_nonce=nonce)   # locks the chain
        resolution = system.something(..., rng, ...)                    # draws in the rules' order
        dice.record_roll(campaign, request=request, resolution=..., ...)  # picks up rng's proof

one roll at a time (draw, then record, then draw the next one).
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import threading
from datetime import UTC, datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

import rules
from campaigns.models import Campaign, Roll, RollSeed
from rules import fair
from rules.base import RandomSource, Resolution, RulesError, ScriptedRandom, SecureRandom
from rules.dice import roll_expression

GENESIS = "0" * 64


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def roll_content(roll: Roll) -> dict[str, Any]:
    """The hashed content of a roll (every stored field but the hashes)."""
    return {
        "campaign": roll.campaign_id,
        "sequence": roll.sequence,
        "post": roll.post_id,
        "session": roll.session_id,
        "roller": roll.roller_id,
        "character": roll.character_id,
        "kind": roll.kind,
        "system": roll.system,
        "label": roll.label,
        "request": roll.request,
        "resolution": roll.resolution,
        "secret": roll.secret,
        "created": _iso(roll.created),
    }


def _body_json(content: dict[str, Any]) -> str:
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def body_digest(roll: Roll) -> str:
    """The digest of the roll's content (what rolls made before the fairness proof were hashed by)."""
    return hashlib.sha256((_body_json(roll_content(roll)) + "|" + roll.salt).encode()).hexdigest()


def proof_digest(proof: dict[str, Any]) -> str:
    return fair.sha256_hex(fair.canonical_json(proof))


def combine_digests(body: str, proof: str | None) -> str:
    if proof is None:
        return body
    return hashlib.sha256(f"v2:{body}:{proof}".encode()).hexdigest()


def content_digest(roll: Roll) -> str:
    return combine_digests(body_digest(roll), proof_digest(roll.fair) if roll.fair else None)


def chain_hash(prev_hash: str, digest: str) -> str:
    return hashlib.sha256(f"{prev_hash}:{digest}".encode()).hexdigest()


# ---------------------------------------------------------------------------
# Committed seeds
# ---------------------------------------------------------------------------
def _new_seed(campaign: Campaign, index: int) -> RollSeed:
    seed = secrets.token_hex(32)
    return RollSeed.objects.create(campaign=campaign, index=index, seed=seed, commitment=fair.commitment(seed))


def current_seed(campaign: Campaign) -> RollSeed:
    """The campaign's unrevealed seed (its commitment is what pages publish); created on first use."""
    seed = RollSeed.objects.filter(campaign=campaign, revealed_at__isnull=True).order_by("-index").first()
    if seed is not None:
        return seed
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).values_list("pk", flat=True).first()
        seed = RollSeed.objects.filter(campaign=campaign, revealed_at__isnull=True).order_by("-index").first()
        if seed is None:
            last = RollSeed.objects.filter(campaign=campaign).order_by("-index").values_list("index", flat=True).first()
            seed = _new_seed(campaign, (last or 0) + 1)
        return seed


def rotate_seed(campaign: Campaign) -> tuple[RollSeed | None, RollSeed]:
    """Reveal the current seed and publish the next one's commitment at the same moment.

    A seed no roll used yet is not revealed (nothing to check; it stays the current one).
    Answers ``(revealed or None, current)``. Callers check permissions (see
    ``campaigns.services.rotate_roll_seed`` and ``close_session``).
    """
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).values_list("pk", flat=True).first()
        seed = current_seed(campaign)
        if not Roll.objects.filter(roll_seed=seed).exists():
            return None, seed
        RollSeed.objects.filter(pk=seed.pk).update(revealed_at=timezone.now())
        seed.refresh_from_db()
        return seed, _new_seed(campaign, seed.index + 1)


def head_annotations(campaign_ref: str) -> dict[str, Any]:
    """Subqueries reading the chain head along with another row (``campaign_ref``: its campaign column)."""
    rolls = Roll.objects.filter(campaign_id=OuterRef(campaign_ref)).order_by("-sequence")
    seeds = RollSeed.objects.filter(campaign_id=OuterRef(campaign_ref), revealed_at__isnull=True).order_by("-index")
    return {
        "chain_sequence": Subquery(rolls.values("sequence")[:1]),
        "chain_hash": Subquery(rolls.values("hash")[:1]),
        "chain_seed": Subquery(seeds.values("index")[:1]),
        "chain_commitment": Subquery(seeds.values("commitment")[:1]),
    }


def cache_head(campaign: Campaign, row: Any) -> None:
    """Keep the head read by :func:`head_annotations` for :func:`chain_head` (no query more)."""
    if getattr(row, "chain_seed", None) is None:
        return  # no seed yet: chain_head() makes the first one
    campaign.__dict__["_chain_head"] = {
        "campaign": campaign.pk,
        "sequence": row.chain_sequence or 0,
        "hash": row.chain_hash or GENESIS,
        "seed": row.chain_seed,
        "commitment": row.chain_commitment,
    }


def chain_head(campaign: Campaign) -> dict[str, Any]:
    """What a page shows as the chain it was served: last sequence and hash, current commitment."""
    cached = campaign.__dict__.get("_chain_head")
    if cached is not None:
        return dict(cached)
    last = Roll.objects.filter(campaign=campaign).order_by("-sequence").values_list("sequence", "hash").first()
    seed = current_seed(campaign)
    return {
        "campaign": campaign.pk,
        "sequence": last[0] if last else 0,
        "hash": last[1] if last else GENESIS,
        "seed": seed.index,
        "commitment": seed.commitment,
    }


# ---------------------------------------------------------------------------
# Fair random sources
# ---------------------------------------------------------------------------
NONCE_RE = re.compile(r"[A-Za-z0-9_-]{16,128}")
_pending = threading.local()


class FairSource(fair.HmacRandom):
    """The random source of one roll: the campaign's current seed, a nonce, the next sequence."""

    def __init__(self, campaign: Campaign, seed: RollSeed, sequence: int, nonce: str, nonce_by: str, request: Any):
        self.campaign_id = campaign.pk
        self.roll_seed = seed
        self.nonce_by = nonce_by
        self.request = request
        super().__init__(seed.seed, nonce, sequence, fair.request_digest(request))

    def proof(self) -> dict[str, Any]:
        return {
            "v": 1,
            "seed": self.roll_seed.index,
            "commitment": self.roll_seed.commitment,
            "nonce": self.nonce,
            "nonce_by": self.nonce_by,
            "request_digest": self.request_digest,
            "dice": [list(d) for d in self.dice],
        }


def clean_nonce(client_nonce: Any) -> str | None:
    """A client nonce (16 to 128 letters, digits, ``-`` or ``_``) or ``None``; raises ValidationError."""
    if client_nonce in (None, ""):
        return None
    if not isinstance(client_nonce, str) or not NONCE_RE.fullmatch(client_nonce):
        raise ValidationError({"client_nonce": [_("The roll nonce is 16 to 128 letters, digits, - or _.")]})
    return client_nonce


def _normalise(request: Any) -> Any:
    return json.loads(json.dumps(request, default=str))


def _next_sequence(campaign: Campaign) -> tuple[int, str]:
    last = Roll.objects.filter(campaign=campaign).order_by("-sequence").only("sequence", "hash").first()
    return ((last.sequence + 1) if last else 1, last.hash if last else GENESIS)


def fair_source(campaign: Campaign, request: Any, client_nonce: str | None = None) -> FairSource:
    """The random source of the campaign's next roll (the single place where one is made).

    Must run inside ``transaction.atomic()``: it locks the campaign's chain until the roll is
    recorded by :func:`record_roll` in the same transaction. ``request`` is what will be stored
    as the roll's request. Without a client nonce the server draws one and the roll says so
    (``nonce_by: "server"``). Raises ValidationError for a malformed nonce.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("fair_source() must be called inside transaction.atomic()")
    nonce = clean_nonce(client_nonce)
    Campaign.objects.select_for_update().filter(pk=campaign.pk).values_list("pk", flat=True).first()
    sequence, _prev = _next_sequence(campaign)
    source = FairSource(
        campaign,
        current_seed(campaign),
        sequence,
        nonce or secrets.token_hex(16),
        "client" if nonce else "server",
        _normalise(request),
    )
    pending = getattr(_pending, "sources", None)
    if pending is None:
        pending = _pending.sources = {}
    pending[campaign.pk] = source
    transaction.on_commit(lambda: pending.pop(campaign.pk, None))
    return source


def resolve_request(campaign: Campaign, request: dict[str, Any], rng: RandomSource | None = None) -> dict[str, Any]:
    """Roll one request (not stored): ``{"kind", "system", "request", "resolution", "label"}``.

    ``request`` is ``{"expression": "2d6+3", "label": ...}`` or
    ``{"system_test": {"kind": ..., ...}, "label": ...}``. Raises
    :class:`rules.base.RulesError` for a bad request.
    """
    if rng is None:  # a dry run (validation): the stored roll draws from fair_source()
        rng = SecureRandom()
    label = str(request.get("label") or "")[:200]
    if request.get("system_test") is not None:
        system = rules.get_system(campaign.system)
        test = dict(request["system_test"])
        settings = system.settings(campaign.system_settings)
        resolution: Resolution = system.resolve(test, rng, settings)
        data = resolution.to_dict()
        try:
            odds = system.odds(test, settings)
        except Exception:  # odds are informative only: never block a roll
            odds = None
        if odds:
            data["odds"] = json.loads(json.dumps(odds, default=str))
        return {"kind": "system", "system": campaign.system, "request": test, "resolution": data, "label": label}
    expression = str(request.get("expression") or "")
    resolution = roll_expression(expression, rng)
    return {
        "kind": "expression",
        "system": "dice",
        "request": {"expression": expression.strip()},
        "resolution": resolution.to_dict(),
        "label": label,
    }


def preview_odds(campaign: Campaign, test: dict[str, Any]) -> dict[str, Any] | None:
    """The odds of a system test before it is rolled (for the SMS spell builder: difficulty and cost).

    Nothing is rolled nor stored. Raises :class:`rules.base.RulesError` for a bad request; answers
    ``None`` when the system defines no odds for this test.
    """
    system = rules.get_system(campaign.system)
    settings = system.settings(campaign.system_settings)
    try:
        odds = system.odds(dict(test), settings)
    except RulesError:
        raise
    except Exception:  # odds are informative only: a system's slip never breaks the form
        return None
    return json.loads(json.dumps(odds, default=str)) if odds else None


def record_roll(
    campaign: Campaign,
    *,
    roller: Any,
    kind: str,
    system: str,
    request: dict[str, Any],
    resolution: dict[str, Any],
    label: str = "",
    secret: bool = False,
    post: Any = None,
    session: Any = None,
    character: Any = None,
    source: FairSource | None = None,
    derived_from: int | None = None,
) -> Roll:
    """Append a roll to the campaign's chain (locks the campaign row).

    The roll's fairness proof comes from ``source``, or else from the source
    :func:`fair_source` made for this campaign in this transaction (so callers that draw
    through ``fair_source`` need no change here). ``derived_from``: the sequence of the roll
    whose dice this one re-reads without drawing (a lowered die, a difficulty set afterwards).
    """
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).values_list("pk", flat=True).first()
        sequence, prev_hash = _next_sequence(campaign)
        pending = getattr(_pending, "sources", None) or {}
        normal_request = _normalise(request)
        if source is None and derived_from is None:
            candidate = pending.get(campaign.pk)
            # A source left by a rolled-back transaction never matches both the sequence and the request.
            if candidate is not None and candidate.sequence == sequence and candidate.request == normal_request:
                source = candidate
        proof: dict[str, Any] = {}
        if source is not None:
            if source.campaign_id != campaign.pk or source.sequence != sequence:
                raise RuntimeError("draw and record one roll at a time: this source was made for another roll")
            if source.request != normal_request:
                raise RuntimeError("the roll's request differs from the one its source was made for")
            proof = source.proof()
            if pending.get(campaign.pk) is source:
                pending.pop(campaign.pk, None)
        elif derived_from is not None:
            proof = {"v": 1, "derived_from": int(derived_from)}
        roll = Roll(
            campaign=campaign,
            sequence=sequence,
            post=post,
            session=session,
            roller=roller,
            character=character,
            kind=kind,
            system=system,
            label=label[:200],
            request=normal_request,
            resolution=resolution,
            secret=secret,
            created=timezone.now(),
            prev_hash=prev_hash,
            salt=secrets.token_hex(16),
            fair=proof,
            roll_seed=source.roll_seed if source is not None else None,
        )
        # Round-trip the JSON so the digest is computed on what the database returns.
        roll.resolution = _normalise(roll.resolution)
        roll.hash = chain_hash(roll.prev_hash, content_digest(roll))
        roll.save()
        return roll


def draws_of(resolution: Any) -> list[Any] | None:
    """The raw dice a stored resolution shows (``None`` when it keeps no ``draws`` list)."""
    if isinstance(resolution, dict) and isinstance(resolution.get("draws"), list):
        return resolution["draws"]
    return None


def check_proof(
    sequence: int,
    proof: dict[str, Any],
    *,
    request: Any = None,
    resolution: Any = None,
    seeds: dict[int, dict[str, Any]],
    draws_by_sequence: dict[int, Any] | None = None,
) -> list[str]:
    """The problems of one roll's fairness proof (``seeds``: index -> ``{"commitment", "seed"}``)."""
    problems: list[str] = []
    if "derived_from" in proof:
        source = (draws_by_sequence or {}).get(int(proof["derived_from"]))
        mine = draws_of(resolution)
        if source is not None and mine is not None and mine != source:
            problems.append(f"roll #{sequence}: its dice differ from those of roll #{proof['derived_from']}")
        return problems
    known = seeds.get(int(proof.get("seed", 0)))
    if known is None or known.get("commitment") != proof.get("commitment"):
        problems.append(f"roll #{sequence}: drawn from a seed whose commitment was not published")
        return problems
    if request is not None and fair.request_digest(request) != proof.get("request_digest"):
        problems.append(f"roll #{sequence}: the request does not match the one the dice were drawn for")
    values = [d[2] for d in proof.get("dice", [])]
    mine = draws_of(resolution)
    if mine is not None and mine != values:
        problems.append(f"roll #{sequence}: the dice shown differ from the dice drawn")
    seed = known.get("seed")
    if seed:
        if fair.commitment(seed) != known["commitment"]:
            problems.append(f"roll #{sequence}: the revealed seed does not match its commitment")
        else:
            try:
                redrawn = fair.recompute(
                    seed, str(proof["nonce"]), sequence, str(proof["request_digest"]), proof.get("dice", [])
                )
            except (KeyError, ValueError, TypeError):
                redrawn = None
            if redrawn != values:
                problems.append(f"roll #{sequence}: the dice are not those of the seed, nonce and request")
    return problems


def replay_expression(request: Any, resolution: Any) -> bool:
    """Whether a dice expression's stored outcome is the one its stored dice give (``rules.dice``)."""
    draws = draws_of(resolution)
    if not isinstance(request, dict) or draws is None or not isinstance(resolution.get("outcome"), dict):
        return False
    try:
        again = roll_expression(str(request.get("expression", "")), ScriptedRandom(draws)).to_dict()
    except (RulesError, ValueError):
        return False
    return again["outcome"] == resolution["outcome"]


def _unproven(roll_fair: dict[str, Any], resolution: Any) -> bool:
    return not roll_fair and bool(draws_of(resolution))


def verify_chain(campaign: Campaign) -> tuple[bool, list[str]]:
    """Recompute the campaign's chain and every fair draw (the server knows every seed).

    Returns ``(ok, problems)``; problems name the roll by its sequence number only (no secret
    content). A roll with dice but no fairness proof after the first proven roll is a problem.
    """
    problems: list[str] = []
    seeds = {s.index: {"commitment": s.commitment, "seed": s.seed} for s in RollSeed.objects.filter(campaign=campaign)}
    expected_prev = GENESIS
    expected_sequence = 1
    proven = False
    draws: dict[int, Any] = {}
    for roll in Roll.objects.filter(campaign=campaign).order_by("sequence").iterator(chunk_size=500):
        if roll.sequence != expected_sequence:
            problems.append(f"roll #{roll.sequence}: expected sequence {expected_sequence} (a roll is missing)")
            expected_sequence = roll.sequence
        if roll.prev_hash != expected_prev:
            problems.append(f"roll #{roll.sequence}: previous hash does not match roll #{roll.sequence - 1}")
        recomputed = chain_hash(roll.prev_hash, content_digest(roll))
        if recomputed != roll.hash:
            problems.append(f"roll #{roll.sequence}: content does not match its hash (altered)")
        if roll.fair:
            proven = True
            problems.extend(
                check_proof(
                    roll.sequence,
                    roll.fair,
                    request=None if "derived_from" in roll.fair else roll.request,
                    resolution=roll.resolution,
                    seeds=seeds,
                    draws_by_sequence=draws,
                )
            )
        elif proven and _unproven(roll.fair, roll.resolution):
            problems.append(f"roll #{roll.sequence}: dice not drawn from a committed seed")
        if roll.kind == "expression" and roll.fair and not replay_expression(roll.request, roll.resolution):
            problems.append(f"roll #{roll.sequence}: the total is not the one its dice give")
        draws[roll.sequence] = draws_of(roll.resolution)
        expected_prev = roll.hash
        expected_sequence += 1
    return (not problems, problems)


def export_seeds(campaign: Campaign) -> list[dict[str, Any]]:
    """Every seed's commitment; the seed itself once revealed."""
    current_seed(campaign)
    return [
        {
            "index": s.index,
            "commitment": s.commitment,
            "published": _iso(s.created),
            "seed": s.seed if s.revealed_at else None,
            "revealed": _iso(s.revealed_at) if s.revealed_at else None,
        }
        for s in RollSeed.objects.filter(campaign=campaign).order_by("index")
    ]


def export_chain(campaign: Campaign, *, can_see: Any = None) -> list[dict[str, Any]]:
    """The chain as JSON rows.

    A roll ``can_see(roll)`` accepts shows its content, the exact text hashed (``canonical``),
    its salt and its proof. Any other roll shows only its ``body_digest``, and its proof once
    its seed is revealed (``proof_digest`` before), never its content.
    """
    revealed = set(
        RollSeed.objects.filter(campaign=campaign, revealed_at__isnull=False).values_list("index", flat=True)
    )
    rows: list[dict[str, Any]] = []
    for roll in Roll.objects.filter(campaign=campaign).order_by("sequence").iterator(chunk_size=500):
        row: dict[str, Any] = {"sequence": roll.sequence, "prev_hash": roll.prev_hash, "hash": roll.hash}
        if can_see is None or can_see(roll):
            content = roll_content(roll)
            row["content"] = content
            row["canonical"] = _body_json(content)
            row["salt"] = roll.salt
            if roll.fair:
                row["fair"] = roll.fair
        else:
            row["body_digest"] = body_digest(roll)
            if roll.fair and ("derived_from" in roll.fair or roll.fair.get("seed") in revealed):
                row["fair"] = roll.fair
            elif roll.fair:
                row["proof_digest"] = proof_digest(roll.fair)
        rows.append(row)
    return rows


def verify_export(rows: list[dict[str, Any]], seeds: list[dict[str, Any]] | None = None) -> tuple[bool, list[str]]:
    """Verify an exported chain without the database (the stand-alone ``tools/verify_rolls.py`` does the same).

    With ``seeds`` (the export's ``seeds``) every fairness proof is checked too; without, the chain only.
    """
    problems: list[str] = []
    known = {int(s["index"]): s for s in seeds or []}
    prev = GENESIS
    proven = False
    draws: dict[int, Any] = {}
    for index, row in enumerate(rows, start=1):
        sequence = row.get("sequence")
        if sequence != index:
            problems.append(f"roll #{sequence}: expected sequence {index}")
        if row.get("prev_hash") != prev:
            problems.append(f"roll #{sequence}: previous hash does not match")
        content = None
        if "canonical" in row:
            content = json.loads(row["canonical"])
            if row.get("content") is not None and row["content"] != content:
                problems.append(f"roll #{sequence}: the content shown differs from the content hashed")
            body = hashlib.sha256((row["canonical"] + "|" + row.get("salt", "")).encode()).hexdigest()
        elif "content" in row:  # an export made before the canonical text was included
            body = hashlib.sha256((_body_json(row["content"]) + "|" + row["salt"]).encode()).hexdigest()
            content = row["content"]
        else:
            body = row.get("body_digest") or row.get("content_digest", "")
        proof = row.get("fair")
        if proof:
            digest = combine_digests(body, proof_digest(proof))
        elif row.get("proof_digest"):
            digest = combine_digests(body, row["proof_digest"])
        else:
            digest = body
        if chain_hash(row.get("prev_hash", ""), digest) != row.get("hash"):
            problems.append(f"roll #{sequence}: content does not match its hash")
        resolution = content.get("resolution") if content else None
        if proof and seeds is None:
            proven = True
        elif proof:
            proven = True
            problems.extend(
                check_proof(
                    int(sequence or 0),
                    proof,
                    request=content.get("request") if content and "derived_from" not in proof else None,
                    resolution=resolution,
                    seeds=known,
                    draws_by_sequence=draws,
                )
            )
        elif row.get("proof_digest"):
            proven = True
        elif proven and content is not None and _unproven({}, resolution):
            problems.append(f"roll #{sequence}: dice not drawn from a committed seed")
        draws[int(sequence or 0)] = draws_of(resolution)
        prev = row.get("hash")
    return (not problems, problems)
