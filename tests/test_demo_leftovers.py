"""Crawl the demo site as every role, in French and English, and fail on
developer leftovers: Python reprs, raw JSON, ``None``/``True``/``False``,
snake_case keys, seed line references ("(L406)") and words of the other
language. User-written text (titles, posts, names, sheet texts) is the
table's own and is not judged."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any
from urllib.parse import urlparse

import pytest
from django.core.management import call_command
from django.test import Client

from tests.leftovers import PATTERNS, foreign_words, visible_text

# Not pages a reader reads: machine formats, the Django admin (its own
# translations), live streams, logout and language switches.
SKIP = re.compile(
    r"^/(admin|api|live|i18n|static|media|healthz)|^/accounts/(logout|confirm-email|password/reset/key)|\.json$|/export"
)
# Pages per URL shape (ids replaced) and per crawl: enough to meet every system.
PER_SHAPE = 3


def _user_strings() -> list[str]:
    """Everything a member typed, which may be in any language."""
    from campaigns.models import Board, Campaign, Post, Thread
    from characters.models import ChangeRequest, Character, LedgerEntry
    from combat.models import Encounter, Participant
    from rules import get_system

    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for c in Campaign.objects.all():
        out += [c.title, c.pitch]
        walk(c.system_settings)
    out += list(Board.objects.values_list("name", flat=True))
    out += list(Thread.objects.values_list("title", flat=True))
    out += list(Post.objects.values_list("body", flat=True))
    for ch in Character.objects.all():
        out += [ch.name, ch.public_description, ch.private_background, ch.gm_comment]
        walk(ch.sheet)
    out += list(ChangeRequest.objects.values_list("reason", flat=True))
    out += list(LedgerEntry.objects.values_list("note", flat=True))
    out += list(Encounter.objects.values_list("title", flat=True))
    from moderation.models import AuditLog, Report, Suspension, TableBan

    for model in (AuditLog, Suspension, TableBan):
        out += list(model.objects.values_list("reason", flat=True))
    for row in Report.objects.values_list("details", "resolution_note", "target_label"):
        out += list(row)
    out += list(AuditLog.objects.values_list("target_label", flat=True))
    out += list(Participant.objects.values_list("name", flat=True))
    from django.contrib.auth import get_user_model

    for u in get_user_model().objects.select_related("profile"):
        out += [u.username, u.email, getattr(u.profile, "display_name", "")]
    for slug in ("ambre", "clefs-de-l-aube", "sms", "altaride"):
        walk(get_system(slug).describe().get("name"))
    return [re.sub(r"\s+", " ", s).strip() for s in out if s and s.strip()]


def _without_user_text(chunk: str, corpus: str, names: re.Pattern[str]) -> str:
    """``chunk`` minus what members typed: all of it, or the titles and
    names it quotes ("Boards · Les Ombres de Rebma")."""
    chunk = re.sub(r"\s+", " ", chunk)
    if chunk in corpus:
        return ""
    return names.sub(" ", chunk)


def _crawl(client: Client, lang: str, corpus: str, names: re.Pattern[str]) -> tuple[int, dict[tuple[str, str], str]]:
    seen: set[str] = set()
    shapes: dict[str, int] = defaultdict(int)
    todo = ["/", "/campaigns/", "/characters/", "/profile/", "/moderation/"]
    found: dict[tuple[str, str], str] = {}
    while todo:
        url = todo.pop(0)
        if url in seen:
            continue
        seen.add(url)
        response = client.get(url)
        if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
            continue
        chunks, links = visible_text(response.content.decode())
        for chunk in chunks:
            chunk = _without_user_text(chunk, corpus, names)
            if not chunk.strip():
                continue
            for name, pattern in PATTERNS.items():
                match = pattern.search(chunk)
                if match:
                    found.setdefault((name, chunk[:100]), url)
            words = foreign_words(chunk, lang)
            if words:
                found.setdefault((f"{'English' if lang == 'fr' else 'French'} word {words[0]!r}", chunk[:100]), url)
        for link in links:
            parsed = urlparse(link)
            if parsed.netloc or not parsed.path.startswith("/") or SKIP.search(parsed.path):
                continue
            path = parsed.path
            shape = re.sub(r"/\d+(?=/|$)", "/N", path)
            if path in seen or path in todo or shapes[shape] >= PER_SHAPE:
                continue
            shapes[shape] += 1
            todo.append(path)
    return len(seen), found


@pytest.mark.django_db
def test_it_finds_no_leftovers_on_any_demo_page_for_any_role_in_french_or_english() -> None:
    from django.contrib.auth import get_user_model

    from campaigns.models import Campaign, Membership, Role

    call_command("demo", stdout=open("/dev/null", "w"))
    User = get_user_model()
    spectator = User.objects.create_user("spectatrice", password="x-12345-y")
    User.objects.create_user("passante", password="x-12345-y")
    for campaign in Campaign.objects.all():
        Membership.objects.get_or_create(campaign=campaign, user=spectator, defaults={"role": Role.SPECTATOR})
    strings = _user_strings()
    corpus = "\n".join(strings)
    short = sorted({s for s in strings if 3 <= len(s) <= 120}, key=len, reverse=True)
    names = re.compile("|".join(re.escape(s) for s in short))

    report: list[str] = []
    pages = 0
    for username in ("mj", "joueuse", "joueur", "spectatrice", "passante", "admin", None):
        for lang in ("fr", "en"):
            client = Client()
            if username:
                user = User.objects.get(username=username)
                user.profile.language = lang
                user.profile.save()
                client.force_login(user)
            client.cookies["tablee_language"] = lang
            count, found = _crawl(client, lang, corpus, names)
            pages += count
            for (kind, chunk), url in sorted(found.items()):
                report.append(f"{username or 'visitor'} [{lang}] {kind}: {chunk!r} at {url}")
    assert pages > 200
    assert not report, f"{len(report)} leftovers:\n" + "\n".join(report)
