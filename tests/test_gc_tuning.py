"""A web process freezes what it loaded at startup and spaces out young collections (config/gc_tuning.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBE = (
    "import gc, json; import config.asgi; from config import gc_tuning; "
    "print(json.dumps({'frozen': gc.get_freeze_count(), 'threshold': gc.get_threshold()}))"
)


def _probe(**env: str) -> dict:
    base = {k: v for k, v in os.environ.items() if k not in ("TABLEE_GC_TUNING", "DATABASE_URL", "REDIS_URL")}
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**base, "TABLEE_INPROCESS_BEAT": "0", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_web_process_freezes_its_startup_objects_and_raises_the_young_threshold() -> None:
    found = _probe()
    assert found["frozen"] > 10_000  # Django, the apps and the URL patterns
    assert found["threshold"][0] == 20_000


def test_it_can_be_turned_off() -> None:
    found = _probe(TABLEE_GC_TUNING="0")
    assert found["frozen"] == 0
    assert found["threshold"][0] < 20_000  # Python's own (700 in 3.11)
