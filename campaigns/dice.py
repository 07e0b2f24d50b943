"""Rolling dice for posts, storing rolls immutably, and the hash chain.

Every roll (*jet*) of a campaign gets the next ``sequence`` number and is
chained to the previous one::

    content_digest = sha256(canonical JSON of the roll's content + salt)
    hash           = sha256(prev_hash + ":" + content_digest)

The first roll's ``prev_hash`` is :data:`GENESIS`. Altering any stored field,
removing a roll or inserting one breaks the chain, which
:func:`verify_chain` detects. The export (:func:`export_chain`) shows a
secret roll only by its content digest, and the random ``salt`` keeps that
digest from being brute-forced back to its dice, so anyone can check the
chain without seeing secrets.

Random draws come from :class:`rules.base.SecureRandom` (the OS's CSPRNG).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from datetime import UTC, datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

import rules
from campaigns.models import Campaign, Roll
from rules.base import RandomSource, Resolution, RulesError, SecureRandom
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


def content_digest(roll: Roll) -> str:
    payload = json.dumps(roll_content(roll), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256((payload + "|" + roll.salt).encode()).hexdigest()


def chain_hash(prev_hash: str, digest: str) -> str:
    return hashlib.sha256(f"{prev_hash}:{digest}".encode()).hexdigest()


def resolve_request(campaign: Campaign, request: dict[str, Any], rng: RandomSource | None = None) -> dict[str, Any]:
    """Roll one request (not stored): ``{"kind", "system", "request", "resolution", "label"}``.

    ``request`` is ``{"expression": "2d6+3", "label": ...}`` or
    ``{"system_test": {"kind": ..., ...}, "label": ...}``. Raises
    :class:`rules.base.RulesError` for a bad request.
    """
    rng = rng or SecureRandom()
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
) -> Roll:
    """Append a roll to the campaign's chain (locks the campaign row)."""
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).values_list("pk", flat=True).first()
        last = Roll.objects.filter(campaign=campaign).order_by("-sequence").only("sequence", "hash").first()
        roll = Roll(
            campaign=campaign,
            sequence=(last.sequence + 1) if last else 1,
            post=post,
            session=session,
            roller=roller,
            character=character,
            kind=kind,
            system=system,
            label=label[:200],
            request=request,
            resolution=resolution,
            secret=secret,
            created=timezone.now(),
            prev_hash=last.hash if last else GENESIS,
            salt=secrets.token_hex(16),
        )
        # Round-trip the JSON so the digest is computed on what the database returns.
        roll.request = json.loads(json.dumps(roll.request, default=str))
        roll.resolution = json.loads(json.dumps(roll.resolution, default=str))
        roll.hash = chain_hash(roll.prev_hash, content_digest(roll))
        roll.save()
        return roll


def verify_chain(campaign: Campaign) -> tuple[bool, list[str]]:
    """Recompute the campaign's chain; return ``(ok, problems)``.

    Problems name the roll by its sequence number only (no secret content).
    """
    problems: list[str] = []
    expected_prev = GENESIS
    expected_sequence = 1
    for roll in Roll.objects.filter(campaign=campaign).order_by("sequence").iterator(chunk_size=500):
        if roll.sequence != expected_sequence:
            problems.append(f"roll #{roll.sequence}: expected sequence {expected_sequence} (a roll is missing)")
            expected_sequence = roll.sequence
        if roll.prev_hash != expected_prev:
            problems.append(f"roll #{roll.sequence}: previous hash does not match roll #{roll.sequence - 1}")
        recomputed = chain_hash(roll.prev_hash, content_digest(roll))
        if recomputed != roll.hash:
            problems.append(f"roll #{roll.sequence}: content does not match its hash (altered)")
        expected_prev = roll.hash
        expected_sequence += 1
    return (not problems, problems)


def export_chain(campaign: Campaign, *, can_see: Any = None) -> list[dict[str, Any]]:
    """The chain as JSON rows; rolls ``can_see(roll)`` refuses show only their digest."""
    rows: list[dict[str, Any]] = []
    for roll in Roll.objects.filter(campaign=campaign).order_by("sequence").iterator(chunk_size=500):
        row: dict[str, Any] = {"sequence": roll.sequence, "prev_hash": roll.prev_hash, "hash": roll.hash}
        if can_see is None or can_see(roll):
            row["content"] = roll_content(roll)
            row["salt"] = roll.salt
        else:
            row["content_digest"] = content_digest(roll)
        rows.append(row)
    return rows


def verify_export(rows: list[dict[str, Any]]) -> tuple[bool, list[str]]:
    """Verify an exported chain without the database (what a player can run)."""
    problems: list[str] = []
    prev = GENESIS
    for index, row in enumerate(rows, start=1):
        if row["sequence"] != index:
            problems.append(f"roll #{row['sequence']}: expected sequence {index}")
        if row["prev_hash"] != prev:
            problems.append(f"roll #{row['sequence']}: previous hash does not match")
        if "content" in row:
            payload = json.dumps(row["content"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            digest = hashlib.sha256((payload + "|" + row["salt"]).encode()).hexdigest()
        else:
            digest = row["content_digest"]
        if chain_hash(row["prev_hash"], digest) != row["hash"]:
            problems.append(f"roll #{row['sequence']}: content does not match its hash")
        prev = row["hash"]
    return (not problems, problems)
