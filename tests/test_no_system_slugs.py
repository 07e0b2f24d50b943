"""Generic apps name no rule system (issue 16: "generic apps contain no system slug").

A system's own behaviour is reached through :class:`rules.base.RuleSystem`
(or a plug-in registry), never by comparing ``campaign.system`` with a slug.
This scans the Python and templates of the generic apps, outside tests,
migrations and demo data, for a quoted system slug.

Nor do they import one system's modules (``from rules.ambre import ...``) or a
system's plug-in app (``systems.<name>``): what only one system has lives in
``rules/<package>/`` and ``systems/<name>/``, reached through
:class:`rules.base.RuleSystem` and :mod:`characters.plugins`.
"""

from __future__ import annotations

import re
from pathlib import Path

import rules

ROOT = Path(__file__).resolve().parent.parent
GENERIC = ["campaigns", "characters", "combat", "progression", "moderation", "api", "live", "accounts", "rhythm"]
SLUG = re.compile("[\"'](" + "|".join(re.escape(slug) for slug in rules.SYSTEM_MODULES) + ")[\"']")
#: ``from rules.ambre import x``, ``import rules.sms.creation``, ``from rules import clefs``, ``from systems...``.
PACKAGES = "|".join(re.escape(module.rpartition(".")[2]) for module in rules.SYSTEM_MODULES.values())
SYSTEM_IMPORT = re.compile(
    rf"^\s*(?:from\s+rules\.(?:{PACKAGES})\b|import\s+rules\.(?:{PACKAGES})\b"
    rf"|from\s+rules\s+import\s+.*\b(?:{PACKAGES})\b|from\s+systems\b|import\s+systems\b)"
)


def _skipped(path: Path) -> bool:
    parts = path.relative_to(ROOT).parts
    return (
        "tests" in parts
        or "migrations" in parts
        or "management" in parts  # the demo command
        or path.name.startswith("demo")  # demo data (demo.py, demo_others.py)
        or path.name == "conftest.py"
        or path.name.startswith("test_")
    )


def _scanned() -> list[Path]:
    files: list[Path] = []
    for app in GENERIC:
        files += sorted((ROOT / app).rglob("*.py")) + sorted((ROOT / app).rglob("*.html"))
    files += sorted((ROOT / "templates").rglob("*.html"))
    return [f for f in files if not _skipped(f)]


def offenders() -> list[str]:
    """``path:line: text`` of every quoted system slug in the generic apps."""
    out: list[str] = []
    for path in _scanned():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if SLUG.search(line):
                out.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return out


def import_offenders() -> list[str]:
    """``path:line: text`` of every import of one system's rules modules or of a plug-in in the generic apps."""
    out: list[str] = []
    for path in _scanned():
        if path.suffix != ".py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if SYSTEM_IMPORT.search(line):
                out.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return out


def test_the_scan_finds_a_slug_where_there_is_one() -> None:
    assert SLUG.search('if campaign.system == "ambre":')
    assert SLUG.search("{% if campaign.system == 'clefs-de-l-aube' %}")
    assert not SLUG.search("ambre_auction = 1")
    assert _scanned(), "the scan must read files"


def test_the_scan_finds_a_system_import_where_there_is_one() -> None:
    assert SYSTEM_IMPORT.search("from rules.ambre import auction as rules_auction")
    assert SYSTEM_IMPORT.search("    from rules.sms.creation import ARCHETYPE_DEFAULT_NOTE")
    assert SYSTEM_IMPORT.search("import rules.clefs")
    assert SYSTEM_IMPORT.search("from rules import altaride")
    assert SYSTEM_IMPORT.search("from systems.ambre.models import Auction")
    assert not SYSTEM_IMPORT.search("from rules.base import Msg")
    assert not SYSTEM_IMPORT.search("from rules import get_system")
    assert not SYSTEM_IMPORT.search("import rules")


def test_generic_apps_import_no_system_module() -> None:
    found = import_offenders()
    assert not found, f"{len(found)} import(s) of one system in generic apps:\n" + "\n".join(found)


def test_generic_apps_name_no_system() -> None:
    found = offenders()
    print(f"{len(found)} system slug(s) in generic apps:\n" + "\n".join(found))
    assert not found, f"{len(found)} system slug(s) in generic apps:\n" + "\n".join(found)
