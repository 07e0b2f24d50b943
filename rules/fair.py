"""Provably fair draws: a deterministic random stream from a committed seed and a nonce.

Pure Python (no Django, no I/O). The scheme (version 1), in plain words:

* The server draws a secret *seed* (32 random bytes) and publishes its *commitment*
  ``SHA-256(seed)`` before any roll uses it. It reveals the seed later (at rotation).
* Each roll brings a *nonce* chosen by the roller's browser (or API client), and has a
  *sequence* number in the campaign's chain and a *request* (what was asked: ``2d6+3``,
  a system test...). ``request_digest = SHA-256(canonical_json(request))``.
* The random stream is made of blocks
  ``HMAC-SHA-256(key=seed, "tablee-dice-v1|" + nonce + "|" + sequence + "|" + request_digest + "|" + counter)``
  for ``counter = 0, 1, 2, ...``; each 32-byte block gives eight 32-bit big-endian words, used in order.
* A die of ``n`` faces between ``a`` and ``b`` (``n = b - a + 1``) takes the next word ``w``;
  if ``w >= 2**32 - (2**32 mod n)`` the word is skipped (rejection sampling: no modulo bias),
  otherwise the die shows ``a + (w mod n)``.

The rules draw through :class:`HmacRandom` exactly as through any other
:class:`rules.base.RandomSource`, in the same order, so every system's draw order is kept.
``HmacRandom.dice`` records ``[a, b, value]`` for every draw: with the revealed seed anyone
recomputes the values (``tools/verify_rolls.py`` and the verify page do, without the server).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
from typing import Any

SCHEME = "tablee-dice-v1"
WORD = 2**32


def canonical_json(value: Any) -> str:
    """A canonical JSON text (sorted keys, no spaces, UTF-8 kept, integral floats as integers).

    Deterministic from the value alone, and reproducible in a browser (the verify page's
    JavaScript implements the same function).
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("non-finite number")
        if value.is_integer() and abs(value) < 2**53:
            return str(int(value))
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ",".join(canonical_json(v) for v in value) + "]"
    if isinstance(value, dict):
        items = []
        for key in sorted(value):
            if not isinstance(key, str):
                raise ValueError("object keys must be strings")
            items.append(json.dumps(key, ensure_ascii=False) + ":" + canonical_json(value[key]))
        return "{" + ",".join(items) + "}"
    raise ValueError(f"not JSON: {type(value).__name__}")


def sha256_hex(text: str | bytes) -> str:
    data = text.encode() if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def commitment(seed_hex: str) -> str:
    """The published commitment of a seed: SHA-256 of its 32 bytes."""
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def request_digest(request: Any) -> str:
    return sha256_hex(canonical_json(request))


def block(seed_hex: str, nonce: str, sequence: int, req_digest: str, counter: int) -> bytes:
    message = f"{SCHEME}|{nonce}|{sequence}|{req_digest}|{counter}".encode()
    return hmac.new(bytes.fromhex(seed_hex), message, hashlib.sha256).digest()


class HmacRandom:
    """A :class:`rules.base.RandomSource` drawing from the committed stream (see module doc)."""

    def __init__(self, seed_hex: str, nonce: str, sequence: int, req_digest: str) -> None:
        if len(bytes.fromhex(seed_hex)) != 32:
            raise ValueError("the seed is 32 bytes")
        self._seed = seed_hex
        self.nonce = nonce
        self.sequence = sequence
        self.request_digest = req_digest
        self._counter = 0
        self._words: list[int] = []
        self.dice: list[list[int]] = []

    def _word(self) -> int:
        if not self._words:
            data = block(self._seed, self.nonce, self.sequence, self.request_digest, self._counter)
            self._counter += 1
            self._words = [int.from_bytes(data[i : i + 4], "big") for i in range(0, 32, 4)]
        return self._words.pop(0)

    def randint(self, a: int, b: int) -> int:
        n = b - a + 1
        if n < 1 or n > WORD:
            raise ValueError(f"cannot draw in [{a}, {b}]")
        limit = WORD - (WORD % n)
        while True:
            w = self._word()
            if w < limit:
                value = a + (w % n)
                self.dice.append([a, b, value])
                return value

    @property
    def values(self) -> list[int]:
        return [d[2] for d in self.dice]


def recompute(seed_hex: str, nonce: str, sequence: int, req_digest: str, dice: list[list[int]]) -> list[int]:
    """Redraw the ranges of ``dice`` from the stream: the values a fair roll must show."""
    rng = HmacRandom(seed_hex, nonce, sequence, req_digest)
    return [rng.randint(int(a), int(b)) for a, b, *_ in dice]
