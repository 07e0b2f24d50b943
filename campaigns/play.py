"""Playing from the sheet: who can roll which tests, and what a stored roll read (one read model).

The post form, the API, the sheet page's "What you can roll" panel and the
thread's rolls all use these functions; the numbers always come from the rules
(``RuleSystem.sheet_tests``), never from the web layer.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet, Subquery
from django.utils.translation import gettext as _

import rules
from campaigns import access
from campaigns.models import Campaign, Post, Thread
from campaigns.voices import PLAYABLE_STATUSES as PLAYABLE_STATUSES
from campaigns.voices import voices
from config.prepared import PreparedQuery
from rules.base import SheetTest


def sheet_test_characters(user: Any, campaign: Campaign) -> QuerySet[Any]:
    """The characters ``user`` may roll sheet tests for (asked of the characters app:
    :meth:`campaigns.voices.Voices.rollable`).

    A player: their own approved characters. A GM or co-GM: every approved player character
    (to roll for a player, with GM-only inputs) and the NPCs still in play.
    """
    if user is None or not user.is_authenticated:
        return Campaign.objects.none()
    return voices().rollable(user, campaign)


def can_roll_for(user: Any, character: Any) -> bool:
    """Whether ``character`` is one of :func:`sheet_test_characters` for ``user`` (no query for a
    player's own character)."""
    return voices().may_roll(user, character)


def sheet_tests_of(character: Any) -> list[SheetTest]:
    """The tests of the character's current sheet, as its system lists them."""
    system = rules.get_system(character.campaign.system)
    settings = system.settings(character.campaign.system_settings)
    return system.sheet_tests(character.current_sheet(), settings, None)


def _number(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
        return str(value)
    return str(value)


def secret_paths(system_slug: str) -> frozenset[str]:
    """Sheet paths shown only to the owner and the GMs (``Field.secret``, e.g. Ambre's attribute points)."""
    if system_slug not in rules.SYSTEM_MODULES:
        return frozenset()
    return frozenset(f.path for f in rules.get_system(system_slug).sheet_fields() if f.secret)


def reads_text(source: dict[str, Any], lang: str, hidden: frozenset[str] = frozenset()) -> str:
    """``Épée (NC) 5 (feuille v7) + Physique (Ph) 10 − Blessure grave 2``: what a stored roll read.

    Reads of ``hidden`` paths (secret sheet values, for a reader who may not see them) are left out.
    """
    reads = [r for r in source.get("reads") or [] if isinstance(r, dict) and r.get("path") not in hidden]
    if not reads:
        return ""
    parts: list[str] = []
    for index, read in enumerate(reads):
        label = str((read.get("label") or {}).get(lang) or (read.get("label") or {}).get("fr") or "")
        value = read.get("value")
        if index == 0:
            version = _("sheet v%(n)s") % {"n": source.get("version")}
            parts.append(f"{label} {_number(value)} ({version})")
        elif isinstance(value, int) and not isinstance(value, bool) and value < 0:
            parts.append(f"− {label} {-value}")
        else:
            parts.append(f"+ {label} {_number(value)}")
    return " ".join(parts)


def _roll_thread_list(locked: bool) -> Any:
    def build(campaign_id: int, character_id: int) -> QuerySet[Thread]:
        threads = Thread.objects.filter(campaign_id=campaign_id).select_related("board")
        last = Post.objects.filter(campaign_id=campaign_id, character_id=character_id)
        if not locked:
            threads = threads.filter(locked=False)
            last = last.filter(thread__locked=False)
        # Each row also names the thread of the character's latest post (the same on every row: the
        # database reads it once), so the panel needs no second query to preselect it.
        threads = threads.annotate(character_thread=Subquery(last.order_by("-id").values("thread_id")[:1]))
        return threads.order_by("-last_post_at", "-id")[:ROLL_THREADS]

    return build


#: The threads offered on a sheet's "What you can roll" panel (the latest active ones).
ROLL_THREADS = 30
_PROBES = {"campaign_id": (970_000_001, 980_000_002), "character_id": (990_000_003, 999_000_004)}
#: Per reader kind (a GM also sees locked threads): compiled once per process (config.prepared).
_ROLL_THREADS = {locked: PreparedQuery(_roll_thread_list(locked), _PROBES) for locked in (False, True)}


def roll_threads(user: Any, campaign: Campaign, character: Any) -> tuple[list[Any], Any]:
    """Threads ``user`` may post a roll in (open ones; a GM also locked), and the character's current one.

    The current thread is the one of the character's latest post (in a thread ``user`` is offered),
    else the latest active thread. One query; a second only when that thread is older than the
    :data:`ROLL_THREADS` listed.
    """
    if not access.can_post(user, campaign):
        return [], None
    gm = access.is_gm(user, campaign)
    listed = _ROLL_THREADS[gm].all(campaign_id=campaign.pk, character_id=character.pk)
    # No thread listed: none is open to this reader, so the character's latest post is in none of them.
    current_id = listed[0].character_thread if listed else None
    current = next((t for t in listed if t.pk == current_id), None)
    if current is None and current_id is not None:
        current = Thread.objects.filter(pk=current_id).select_related("board").first()
        if current is not None:
            listed.insert(0, current)
    return listed, current or (listed[0] if listed else None)


def sheet_panel(user: Any, character: Any, lang: str) -> dict[str, Any] | None:
    """The "What you can roll" panel of a sheet page: the lines, the threads (``pk``, ``title``), the
    current one (``pk``), as plain values.

    ``None`` when ``user`` cannot roll for this character (a visitor, a draft, someone else's character).
    """
    if not can_roll_for(user, character):
        return None
    lines = []
    for test in sheet_tests_of(character):
        label = test.label.get(lang)
        lines.append(
            {
                "key": test.key,
                "label": label,
                # The button's accessible name, "Lancer Épée" (one catalog lookup a line, not a template tag).
                "aria": _("Roll %(what)s") % {"what": label},
                "group": test.group.get(lang),
                "reads": [{"label": r.label.get(lang), "value": r.value} for r in test.reads],
                "impossible": test.impossible.get(lang) if test.impossible else "",
            }
        )
    groups: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        groups.setdefault(line["group"], []).append(line)
    threads, current = roll_threads(user, character.campaign, character)
    return {
        "groups": list(groups.items()),
        # Plain values (the page renders the panel with ``{% include_pure %}``, config.puretag).
        "threads": [{"pk": t.pk, "title": t.title} for t in threads],
        "current": {"pk": current.pk} if current is not None else None,
    }
