"""Test support: pick a client nonce that makes the next fair roll show given dice.

The server's stream is fixed by the committed seed, the nonce, the sequence and the request:
trying nonces is what a test does to get a known die while keeping a valid fairness proof.
"""

from __future__ import annotations

from typing import Any

from campaigns import dice
from campaigns.models import Campaign, Roll
from rules import fair


def nonce_giving(campaign: Campaign, roll_request: dict[str, Any], draws: list[int], tries: int = 20000) -> str:
    """A nonce for which ``roll_request`` (a post's roll request), rolled next, draws ``draws``."""
    seed = dice.current_seed(campaign)
    last = Roll.objects.filter(campaign=campaign).order_by("-sequence").values_list("sequence", flat=True).first()
    sequence = (last or 0) + 1
    stored = dice.resolve_request(campaign, roll_request)["request"]
    digest = fair.request_digest(dice._normalise(stored))
    for i in range(tries):
        nonce = f"test-nonce-{i:08d}"
        rng = fair.HmacRandom(seed.seed, nonce, sequence, digest)
        try:
            rolled = dice.resolve_request(campaign, roll_request, rng=rng)
        except Exception:
            continue
        if rolled["resolution"].get("draws") == draws:
            return nonce
    raise AssertionError(f"no nonce gives {draws} in {tries} tries")
