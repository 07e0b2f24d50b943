#!/usr/bin/env python3
"""Verify a Tablée dice export without Tablée: chain, fair dice, seeds, checkpoints, witnessed heads.

Stand-alone: Python 3.10+ standard library only (checking the Ed25519 signature of a checkpoint
needs the ``cryptography`` package; without it the signature is reported as not checked).

    python3 tools/verify_rolls.py export.json
    python3 tools/verify_rolls.py export.json --checkpoint kept-checkpoint.json --head 12:3fa9...
    python3 tools/verify_rolls.py export.json --heads tablee-heads-7.json   # saved from the verify page
    python3 tools/verify_rolls.py export.json --seeds seeds.json --public-key BASE64_KEY

The export is the JSON of the campaign's "Dice chain" page ("Download the chain"), or of
``GET /api/v1/campaigns/<slug>/rolls/export/``. It exits with 0 when everything agrees, 1 at the
first discrepancy (reported by roll number, followed by every other problem found).

The scheme (also in rules/fair.py and campaigns/dice.py):

* ``body_digest = sha256(canonical + "|" + salt)``; with a fairness proof
  ``digest = sha256("v2:" + body_digest + ":" + sha256(canonical_json(proof)))``;
  ``hash = sha256(prev_hash + ":" + digest)``; the first ``prev_hash`` is 64 zeros.
* The dice: blocks ``HMAC-SHA-256(seed, "tablee-dice-v1|" + nonce + "|" + sequence + "|"
  + request_digest + "|" + counter)``, 32-bit big-endian words in order, a die of n faces
  skips a word ``>= 2**32 - 2**32 % n`` and otherwise shows ``a + word % n``.
* A seed is valid when ``sha256(seed bytes)`` is the commitment published before it was used.
* A checkpoint is ``{"checkpoint": {...}, "signature", "public_key"}``; the signature is Ed25519
  over ``canonical_json(checkpoint)``.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import math
import sys
from pathlib import Path
from typing import Any

GENESIS = "0" * 64
SCHEME = "tablee-dice-v1"
WORD = 2**32


def canonical_json(value: Any) -> str:
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
    if isinstance(value, list):
        return "[" + ",".join(canonical_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{"
            + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canonical_json(value[k]) for k in sorted(value))
            + "}"
        )
    raise ValueError(f"not JSON: {type(value).__name__}")


def sha(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def redraw(seed_hex: str, nonce: str, sequence: int, request_digest: str, dice: list[list[int]]) -> list[int]:
    key = bytes.fromhex(seed_hex)
    words: list[int] = []
    counter = 0
    out: list[int] = []
    for a, b, *_ in dice:
        n = int(b) - int(a) + 1
        if n < 1 or n > WORD:
            raise ValueError("bad die")
        limit = WORD - WORD % n
        while True:
            if not words:
                msg = f"{SCHEME}|{nonce}|{sequence}|{request_digest}|{counter}".encode()
                counter += 1
                block = hmac.new(key, msg, hashlib.sha256).digest()
                words = [int.from_bytes(block[i : i + 4], "big") for i in range(0, 32, 4)]
            w = words.pop(0)
            if w < limit:
                out.append(int(a) + w % n)
                break
    return out


def draws_of(resolution: Any) -> list[Any] | None:
    if isinstance(resolution, dict) and isinstance(resolution.get("draws"), list):
        return resolution["draws"]
    return None


def check_signature(doc: dict[str, Any], public_key_b64: str | None) -> str | None:
    """``None`` when the checkpoint is signed by the key, else a problem."""
    key_b64 = public_key_b64 or doc.get("public_key")
    if public_key_b64 and doc.get("public_key") not in (None, public_key_b64):
        return "is signed by another key than the one given"
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError:
        return "signature not checked (install the cryptography package)"
    try:
        key = Ed25519PublicKey.from_public_bytes(base64.b64decode(key_b64 or ""))
        key.verify(base64.b64decode(doc.get("signature", "")), canonical_json(doc.get("checkpoint")).encode())
    except (InvalidSignature, ValueError, TypeError):
        return "has a signature that does not verify"
    return None


class Report:
    def __init__(self) -> None:
        self.problems: list[tuple[int, str]] = []
        self.stats = {"rolls": 0, "recomputed": 0, "pending": 0, "server_nonce": 0, "heads": 0, "checkpoints": 0}

    def add(self, sequence: int, text: str) -> None:
        self.problems.append((sequence, f"roll #{sequence}: {text}"))


def verify(
    data: dict[str, Any],
    *,
    extra_seeds: list[dict[str, Any]] = (),  # type: ignore[assignment]
    checkpoints: list[dict[str, Any]] = (),  # type: ignore[assignment]
    heads: list[tuple[int, str]] = (),  # type: ignore[assignment]
    public_key: str | None = None,
) -> Report:
    report = Report()
    seeds: dict[int, dict[str, Any]] = {}
    for s in [*data.get("seeds", []), *extra_seeds]:
        known = seeds.setdefault(int(s["index"]), dict(s))
        if known.get("commitment") != s.get("commitment"):
            report.add(0, f"seed #{s['index']} has two different commitments")
        if s.get("seed"):
            known["seed"] = s["seed"]
    rows = data.get("rolls", [])
    prev = GENESIS
    proven = False
    draws: dict[int, Any] = {}
    for index, row in enumerate(rows, start=1):
        seq = int(row.get("sequence", 0))
        report.stats["rolls"] += 1
        if seq != index:
            report.add(seq, f"found where roll #{index} should be (missing or reordered)")
        if row.get("prev_hash") != prev:
            report.add(seq, "does not point to the roll before it")
        content = None
        if isinstance(row.get("canonical"), str):
            content = json.loads(row["canonical"])
            if "content" in row and canonical_json(row["content"]) != canonical_json(content):
                report.add(seq, "the content shown differs from the content hashed")
            body = sha(row["canonical"] + "|" + row.get("salt", ""))
        elif "content" in row:
            content = row["content"]
            text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            body = sha(text + "|" + row.get("salt", ""))
        else:
            body = row.get("body_digest") or row.get("content_digest") or ""
        proof = row.get("fair")
        if proof:
            digest = sha(f"v2:{body}:{sha(canonical_json(proof))}")
        elif row.get("proof_digest"):
            digest = sha(f"v2:{body}:{row['proof_digest']}")
        else:
            digest = body
        if sha(f"{row.get('prev_hash')}:{digest}") != row.get("hash"):
            report.add(seq, "does not match its hash (altered)")
        resolution = content.get("resolution") if isinstance(content, dict) else None
        if proof:
            proven = True
            _check_proof(report, seq, proof, content, resolution, seeds, draws)
        elif row.get("proof_digest"):
            proven = True
            report.stats["pending"] += 1
        elif proven and content is not None and draws_of(resolution):
            report.add(seq, "has dice that were not drawn from a committed seed")
        draws[seq] = draws_of(resolution)
        prev = row.get("hash")
    for seq, head in heads:
        report.stats["heads"] += 1
        if seq > len(rows):
            report.add(seq, "a head you saw is no longer in the chain")
        elif seq > 0 and rows[seq - 1].get("hash") != head:
            report.add(seq, "the chain was rewritten since you saw this head")
    docs = ([data["checkpoint"]] if data.get("checkpoint") else []) + list(checkpoints)
    for doc in docs:
        report.stats["checkpoints"] += 1
        cp = doc.get("checkpoint") or {}
        seq = int(cp.get("sequence", 0))
        problem = check_signature(doc, public_key)
        if problem:
            report.add(seq, f"the checkpoint {problem}")
        if cp.get("campaign") not in (None, data.get("campaign_id")) and data.get("campaign_id") is not None:
            report.add(seq, "the checkpoint is for another campaign")
        if seq > len(rows):
            report.add(seq, "a signed checkpoint's head is no longer in the chain")
        elif seq > 0 and rows[seq - 1].get("hash") != cp.get("head"):
            report.add(seq, "the chain differs from the signed checkpoint")
        index = cp.get("seed")
        if index is not None and int(index) in seeds and seeds[int(index)].get("commitment") != cp.get("commitment"):
            report.add(seq, f"seed #{index}'s commitment differs from the signed one")
    return report


def _check_proof(
    report: Report,
    seq: int,
    proof: dict[str, Any],
    content: Any,
    resolution: Any,
    seeds: dict[int, dict[str, Any]],
    draws: dict[int, Any],
) -> None:
    if "derived_from" in proof:
        source, mine = draws.get(int(proof["derived_from"])), draws_of(resolution)
        if source is not None and mine is not None and mine != source:
            report.add(seq, f"its dice differ from those of roll #{proof['derived_from']} it re-reads")
        return
    if proof.get("nonce_by") == "server":
        report.stats["server_nonce"] += 1
    known = seeds.get(int(proof.get("seed", 0)))
    if known is None or known.get("commitment") != proof.get("commitment"):
        report.add(seq, "drawn from a seed whose commitment was not published")
        return
    if isinstance(content, dict) and sha(canonical_json(content.get("request"))) != proof.get("request_digest"):
        report.add(seq, "the request does not match the one its dice were drawn for")
    values = [d[2] for d in proof.get("dice", [])]
    shown = draws_of(resolution)
    if shown is not None and shown != values:
        report.add(seq, "the dice shown differ from the dice drawn")
    seed = known.get("seed")
    if not seed:
        report.stats["pending"] += 1
        return
    if sha(bytes.fromhex(seed)) != known["commitment"]:
        report.add(seq, "the revealed seed does not match its commitment")
        return
    try:
        again = redraw(seed, str(proof["nonce"]), seq, str(proof["request_digest"]), proof.get("dice", []))
    except (KeyError, ValueError, TypeError):
        again = None
    if again != values:
        report.add(seq, "the dice are not those its seed, nonce and request give")
    else:
        report.stats["recomputed"] += 1


def replay_expressions(data: dict[str, Any], report: Report) -> None:
    """With Tablée's pure ``rules`` package at hand (this repository): each dice expression's total
    must be the one its dice give (``rules.dice.roll_expression`` replayed on the stored dice)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from rules.base import RulesError, ScriptedRandom
    from rules.dice import roll_expression

    for row in data.get("rolls", []):
        if not isinstance(row.get("canonical"), str) or not row.get("fair"):
            continue
        content = json.loads(row["canonical"])
        resolution = content.get("resolution") or {}
        if content.get("kind") != "expression" or draws_of(resolution) is None:
            continue
        try:
            again = roll_expression(str(content["request"].get("expression", "")), ScriptedRandom(resolution["draws"]))
            same = again.to_dict()["outcome"] == resolution.get("outcome")
        except (RulesError, ValueError, KeyError, AttributeError):
            same = False
        if not same:
            report.add(int(row["sequence"]), "the total is not the one its dice give")


def _load(path: str) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Verify a Tablée dice export without Tablée.")
    parser.add_argument("export", help="the export JSON (Dice chain page > Download the chain)")
    parser.add_argument("--seeds", action="append", default=[], help="a JSON list of revealed seeds to add")
    parser.add_argument("--checkpoint", action="append", default=[], help="a signed checkpoint you kept")
    parser.add_argument("--head", action="append", default=[], help="a head you saw, SEQUENCE:HASH")
    parser.add_argument(
        "--heads", action="append", default=[], help="the heads (and checkpoints) your browser saw: its saved file"
    )
    parser.add_argument("--public-key", help="the site's public key (base64, from /.well-known/tablee-rolls-key)")
    parser.add_argument(
        "--replay", action="store_true", help="also replay dice expressions' totals with this repository's rules"
    )
    args = parser.parse_args(argv)
    data = _load(args.export)
    extra: list[dict[str, Any]] = []
    for path in args.seeds:
        loaded = _load(path)
        extra.extend(loaded.get("seeds", []) if isinstance(loaded, dict) else loaded)
    heads = []
    for item in args.head:
        seq, _sep, value = item.partition(":")
        heads.append((int(seq), value.strip()))
    kept = [_load(p) for p in args.checkpoint]
    for path in args.heads:  # the verify page's "Save the heads this browser saw"
        saved = _load(path)
        heads.extend((int(h["s"]), str(h["h"])) for h in saved.get("heads", []) if int(h.get("s", 0)) > 0)
        kept.extend(saved.get("checkpoints", []))
    report = verify(
        data,
        extra_seeds=extra,
        checkpoints=kept,
        heads=heads,
        public_key=args.public_key,
    )
    if args.replay:
        replay_expressions(data, report)
    s = report.stats
    print(
        f"{s['rolls']} rolls; {s['recomputed']} recomputed from a revealed seed, {s['pending']} waiting for their"
        f" seed, {s['server_nonce']} with a server nonce; {s['heads']} heads, {s['checkpoints']} checkpoints."
    )
    if report.problems:
        ordered = sorted(report.problems, key=lambda p: p[0])
        first = ordered[0][1]
        print(f"FIRST DISCREPANCY: {first}")
        for _seq, text in ordered[1:]:
            print(f"  also: {text}")
        return 1
    print("OK: the chain, the dice, the seeds and the checkpoints agree.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
