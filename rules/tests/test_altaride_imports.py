"""The Altaride package is pure Python: no Django, no I/O at import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "altaride"


def test_it_imports_nothing_from_django() -> None:
    code = (
        "import sys; from rules import get_system; s = get_system('altaride'); s.describe(); "
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.')); "
        "print(','.join(bad)); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=PACKAGE.parents[1], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_its_sources_do_not_mention_django_or_file_io() -> None:
    for path in PACKAGE.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "import django" not in text and "from django" not in text, path
        assert "open(" not in text, path


def test_it_is_registered() -> None:
    from rules import get_system
    from rules.altaride import SYSTEM

    assert get_system("altaride") is SYSTEM
    assert SYSTEM.slug == "altaride" and not SYSTEM.diceless


def test_its_outputs_are_json_serialisable() -> None:
    import json

    from rules.altaride import SYSTEM
    from rules.base import Combatant, SeededRandom
    from rules.tests.test_altaride_creation import SETTINGS, aldo

    json.dumps(SYSTEM.describe())
    json.dumps(SYSTEM.creation_budget(aldo(), SETTINGS).to_dict("fr"))
    json.dumps(SYSTEM.derive(aldo(), SETTINGS))
    for kind, fields in SYSTEM.test_kinds().items():
        assert fields, kind
    res = SYSTEM.resolve({"kind": "opposed_test", "target": 12, "defender_target": 11}, SeededRandom(1), SETTINGS)
    json.dumps(res.to_dict())
    a = Combatant("a", "A", "x", aldo(), SYSTEM.combat_state(aldo(), SETTINGS))
    b = Combatant("b", "B", "y", aldo(), SYSTEM.combat_state(aldo(), SETTINGS))
    json.dumps(SYSTEM.initiative([a, b], {}, SeededRandom(2), SETTINGS))
    result = SYSTEM.resolve_action(
        a, b, {"action": "attack", "weapon": "dague", "defence": "dodge"}, SeededRandom(3), SETTINGS
    )
    json.dumps(result.to_dict())
