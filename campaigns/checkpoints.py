"""Signed checkpoints of a campaign's dice chain (Ed25519 key of the instance).

A checkpoint says, under the instance's signature, "at this time the chain of this campaign
ended at roll n with this hash, and the current seed's commitment was this". Anyone who keeps
one can later prove that a rewritten history is not the one the server signed: the stand-alone
``tools/verify_rolls.py`` and the verify page check the signature (over
``rules.fair.canonical_json(checkpoint)``) and that the chain still passes through that head.

The key: ``settings.TABLEE_ROLLS_SIGNING_KEY`` (32 bytes, hex or base64), or a key generated on
first use into ``settings.TABLEE_DATA_DIR / "rolls-signing.key"`` (mode 0600), or, when that
directory cannot be written (a read-only container), one derived from ``SECRET_KEY``. The public
key is served at ``/.well-known/tablee-rolls-key``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import os
from datetime import UTC
from functools import lru_cache
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from campaigns import access, dice
from campaigns.models import Campaign
from rules import fair

logger = logging.getLogger(__name__)
SCHEME = "tablee-checkpoint-v1"
KEY_FILE = "rolls-signing.key"


def _decode(value: str) -> bytes:
    value = value.strip()
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        try:
            raw = base64.b64decode(
                value + "=" * (-len(value) % 4), altchars=b"-_" if "-" in value or "_" in value else None
            )
        except (binascii.Error, ValueError):
            raw = b""
    if len(raw) != 32:
        raise ImproperlyConfigured("TABLEE_ROLLS_SIGNING_KEY must be 32 bytes in hex or base64")
    return raw


def _load_or_create(path: Path) -> bytes:
    try:
        return _decode(path.read_text())
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = os.urandom(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first
        return _decode(path.read_text())
    with os.fdopen(fd, "w") as handle:
        handle.write(raw.hex() + "\n")
    return raw


@lru_cache(maxsize=4)
def _private_key(configured: str, data_dir: str) -> Ed25519PrivateKey:
    if configured:
        raw = _decode(configured)
    else:
        try:
            raw = _load_or_create(Path(data_dir) / KEY_FILE)
        except OSError:
            # A read-only image (no data volume): a key derived from the secret key, stable across
            # processes and containers sharing it; set TABLEE_ROLLS_SIGNING_KEY to decouple them.
            logger.warning("cannot write %s: the dice signing key is derived from DJANGO_SECRET_KEY", data_dir)
            raw = hmac.new(settings.SECRET_KEY.encode(), b"tablee-rolls-signing-key-v1", hashlib.sha256).digest()
    return Ed25519PrivateKey.from_private_bytes(raw)


def private_key() -> Ed25519PrivateKey:
    return _private_key(settings.TABLEE_ROLLS_SIGNING_KEY, str(settings.TABLEE_DATA_DIR))


def public_key_bytes() -> bytes:
    return private_key().public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def public_key_info() -> dict[str, str]:
    """What ``/.well-known/tablee-rolls-key`` serves."""
    raw = public_key_bytes()
    return {
        "algorithm": "Ed25519",
        "public_key": base64.b64encode(raw).decode(),
        "public_key_hex": raw.hex(),
        "key_id": fair.sha256_hex(raw)[:16],
        "scheme": SCHEME,
    }


def checkpoint(campaign: Campaign) -> dict[str, Any]:
    """A signed statement of the campaign's current chain head."""
    head = dice.chain_head(campaign)
    payload = {
        "scheme": SCHEME,
        "campaign": campaign.pk,
        "slug": campaign.slug,
        "sequence": head["sequence"],
        "head": head["hash"],
        "seed": head["seed"],
        "commitment": head["commitment"],
        "time": timezone.now().astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    signature = private_key().sign(fair.canonical_json(payload).encode())
    info = public_key_info()
    return {
        "checkpoint": payload,
        "signature": base64.b64encode(signature).decode(),
        "public_key": info["public_key"],
        "key_id": info["key_id"],
    }


def export_document(user: Any, campaign: Campaign) -> dict[str, Any]:
    """The export a player verifies: the rows ``user`` may see (digests of the others), every seed
    (revealed ones in clear) and a fresh signed checkpoint."""
    rows = dice.export_chain(campaign, can_see=lambda roll: access.can_see_roll(user, roll))
    return {
        "format": "tablee-rolls-v2",
        "scheme": fair.SCHEME,
        "campaign": campaign.slug,
        "campaign_id": campaign.pk,
        "genesis": dice.GENESIS,
        "seeds": dice.export_seeds(campaign),
        "rolls": rows,
        "checkpoint": checkpoint(campaign),
    }
