"""Issue 16 item 4: characters sits below combat, progression, rhythm, moderation, api and the plug-ins.

It reaches them only through what it defines (:mod:`characters.plugins`,
:mod:`characters.change_kinds`, :mod:`characters.signals`), filled in their
``AppConfig.ready()``: no import of theirs, at module level or in a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HIGHER = {"combat", "progression", "rhythm", "moderation", "api", "systems"}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
    return out


def test_characters_imports_no_higher_layer() -> None:
    offenders = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if "tests" in parts or "migrations" in parts or path.name.startswith("demo"):
            continue
        for line, module in _imports(path):
            if module.split(".")[0] in HIGHER:
                offenders.append(f"characters/{path.relative_to(ROOT)}:{line}: {module}")
    assert not offenders, "\n".join(offenders)
