"""Test helper: a client nonce that makes a post's roll request, rolled next, draw the given dice.

Like :func:`campaigns.tests.fairness.nonce_giving`, for any roll request a post accepts (a test built
from the sheet too): the request is prepared exactly as ``create_post`` prepares it.
"""

from __future__ import annotations

from typing import Any

from campaigns import dice, services
from campaigns.models import Campaign, Roll
from rules import fair


def nonce_for(user: Any, campaign: Campaign, roll_request: dict[str, Any], draws: list[int], tries: int = 20000) -> str:
    prepared = services._prepare_rolls(user, campaign, [roll_request])[0]
    seed = dice.current_seed(campaign)
    last = Roll.objects.filter(campaign=campaign).order_by("-sequence").values_list("sequence", flat=True).first()
    sequence = (last or 0) + 1
    digest = fair.request_digest(dice._normalise(prepared["request"]))
    for i in range(tries):
        nonce = f"test-nonce-{i:08d}"
        rng = fair.HmacRandom(seed.seed, nonce, sequence, digest)
        try:
            rolled = dice.resolve_request(campaign, prepared["source_request"], rng=rng)
        except Exception:
            continue
        if rolled["resolution"].get("draws") == draws:
            return nonce
    raise AssertionError(f"no nonce gives {draws} in {tries} tries")
