"""Combat's place in the layers (README.md, "Architecture"): it imports only lower apps, and at module level.

Combat sits above campaigns, characters, live, config and rules, beside progression, below
rhythm, moderation, api and the plug-ins: what a higher app does when a fight needs it is a
receiver of :mod:`combat.signals` (e.g. rhythm tells a defender to choose). An import inside a
function would hide a cycle from the import contract, so combat has none (``AppConfig.ready``
excepted: it loads combat's own registrations).
"""

from __future__ import annotations

import ast
from pathlib import Path

COMBAT = Path(__file__).resolve().parents[1]
APPS = {"rules", "config", "accounts", "live", "campaigns", "characters", "combat", "progression", "rhythm"}
APPS |= {"moderation", "api", "systems"}
ALLOWED = {"combat", "campaigns", "characters", "live", "config", "rules"}


def _modules() -> list[Path]:
    skip = {"tests", "migrations"}
    return [
        p for p in COMBAT.rglob("*.py") if not skip & set(p.relative_to(COMBAT).parts) and not p.name.startswith("demo")
    ]


def _imports(path: Path) -> list[tuple[str, int, bool]]:
    """``(top-level package, line, inside a function)`` of every absolute import of the module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nested: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            nested |= {id(n) for n in ast.walk(node) if n is not node}
    out = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        out += [(name.split(".")[0], node.lineno, id(node) in nested) for name in names]
    return out


def test_it_scans_the_combat_modules() -> None:
    names = {p.relative_to(COMBAT).as_posix() for p in _modules()}
    assert {"services/__init__.py", "services/declarations.py", "views.py", "presenters.py"} <= names


def test_it_imports_no_higher_app() -> None:
    wrong = [
        f"{p.relative_to(COMBAT)}:{line} imports {top}"
        for p in _modules()
        for top, line, _nested in _imports(p)
        if top in APPS and top not in ALLOWED
    ]
    assert wrong == []


def test_it_hides_no_app_import_in_a_function() -> None:
    hidden = [
        f"{p.relative_to(COMBAT)}:{line} imports {top} in a function"
        for p in _modules()
        if p.name != "apps.py"
        for top, line, nested in _imports(p)
        if nested and top in APPS
    ]
    assert hidden == []


def test_the_scanner_sees_a_hidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import rules\n\ndef f():\n    from rhythm import loop\n", encoding="utf-8")
    assert _imports(sample) == [("rules", 1, False), ("rhythm", 4, True)]
