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

from tests.leftovers import PATTERNS, Chunk, PageText, foreign_words, number_format_issue, page_text, punctuation_issue

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
    # A version reason may wrap a member's words ("ramené en jeu : <the GM's reason>", read in the
    # reader's language as "brought back: <the GM's reason>"): the words after the prefix are theirs.
    from characters.models import SheetVersion

    for reason in SheetVersion.objects.exclude(reason="").values_list("reason", flat=True):
        out += [reason, reason.split(" : ", 1)[-1], reason.split(": ", 1)[-1]]
    out += list(Participant.objects.values_list("name", flat=True))
    from django.contrib.auth import get_user_model

    for u in get_user_model().objects.select_related("profile"):
        out += [u.username, u.email, getattr(u.profile, "display_name", "")]
    for slug in ("ambre", "clefs-de-l-aube", "sms", "altaride"):
        walk(get_system(slug).describe().get("name"))
    return [re.sub(r"\s+", " ", s).strip() for s in out if s and s.strip()]


def _machine_words(lang: str) -> frozenset[str]:
    """Stored values that have a label (choice keys, statuses, the rules'
    value keys) and are no label in ``lang``: shown bare, they are leftovers
    ("État : active" for "État : Actif")."""
    from django.apps import apps
    from django.utils import translation

    from rules import available_systems

    keys: set[str] = set()
    labels: set[str] = set()

    def walk(fields: Any) -> None:
        for f in fields:
            for value, label in f.choices:
                keys.add(str(value))
                labels.add(label.get(lang))
            walk(f.item_fields)

    for system in available_systems():
        walk(system.sheet_fields())
        walk(system.campaign_settings_fields())
        walk(system.action_fields())
        for fields in (*system.test_kinds().values(), *system.purchase_fields().values()):
            walk(fields)
        for table in (
            system.combat_value_labels(),
            system.test_kind_labels(),
            system.group_labels(),
            system.column_labels(),
            system.purchase_kind_labels(),
            system.currency_labels(),
        ):
            for key, label in table.items():
                keys.update(key.split("."))
                labels.add(label.get(lang))
    with translation.override(lang):
        for model in apps.get_models():
            for field in model._meta.get_fields():
                for value, label in getattr(field, "flatchoices", None) or ():
                    keys.add(str(value))
                    labels.add(str(label))
    # Every message of the site's catalogues is a label too ("created", a version's reason).
    from django.utils.translation import trans_real

    catalog = trans_real.translation("fr")._catalog  # type: ignore[attr-defined]
    for msgid, msgstr in catalog.items():
        text = msgid[0] if isinstance(msgid, tuple) else msgid
        labels.add(str(msgstr) if lang == "fr" else text.split("\x04")[-1])
    lowered = {label.lower() for label in labels}
    return frozenset(k for k in keys if re.fullmatch(r"[a-z][a-z_]{2,}", k) and k not in lowered)


def _without_user_text(chunk: str, corpus: str, names: re.Pattern[str]) -> str:
    """``chunk`` minus what members typed: all of it, or the titles and
    names it quotes ("Boards · Les Ombres de Rebma")."""
    chunk = re.sub(r"\s+", " ", chunk)
    if chunk in corpus:
        return ""
    return names.sub(" ", chunk)


class Crawl:
    """What one reader (a role, a language) meets on the demo site."""

    def __init__(self, client: Client, lang: str, corpus: str, names: re.Pattern[str], gm: bool) -> None:
        self.client, self.lang, self.corpus, self.names, self.gm = client, lang, corpus, names, gm
        self.found: dict[tuple[str, str], str] = {}
        self.pages = 0
        self.refs_seen = 0
        self.visited: dict[str, int] = {}
        self.machine = _machine_words(lang)

    def judge_text(self, chunks: list[Chunk], where: str) -> None:
        for c in chunks:
            if c.user:
                # A form value may quote what members wrote ("> " lines of a reply).
                lines = [re.sub(r"^(?:>\s?)+", "", line).strip() for line in c.text.splitlines()]
                text = " ".join(_without_user_text(line, self.corpus, self.names) for line in lines if line)
            else:
                text = _without_user_text(c.text, self.corpus, self.names)
            if not text.strip() or re.fullmatch(r"\s*(?:https?://|/)\S*\s*", text):
                continue  # nothing of the site's own, or an address
            if c.in_ref and not self.gm:
                self.found.setdefault(("rules reference shown to a player", text[:100]), where)
            for name, pattern in PATTERNS.items():
                if name == "line reference" and c.in_ref and self.gm:
                    continue  # the GM's rules reference: the one place line references belong
                if pattern.search(text):
                    self.found.setdefault((name, text[:100]), where)
            words = foreign_words(text, self.lang)
            if words:
                other = "English" if self.lang == "fr" else "French"
                self.found.setdefault((f"{other} word {words[0]!r}", text[:100]), where)
            if text.strip() in self.machine:
                self.found.setdefault((f"stored value {text.strip()!r} shown without its label", text[:100]), where)
            punctuation = punctuation_issue(text, self.lang)
            if punctuation:
                self.found.setdefault((f"punctuation {punctuation!r} not in the {self.lang} way", text[:100]), where)
            number = number_format_issue(text, self.lang)
            if number:
                self.found.setdefault((f"number {number!r} not in the {self.lang} format", text[:100]), where)

    def get(self, url: str, fragment: bool = False) -> PageText | None:
        headers = {"HX-Request": "true"} if fragment else {}
        response = self.client.get(url, headers=headers)
        if "text/html" not in response.get("Content-Type", "") or response.status_code in (301, 302, 303):
            return None
        self.pages += 1
        self.visited[url] = response.status_code
        page = page_text(response.content.decode())
        self.refs_seen += page.refs
        self.judge_text(page.chunks, url)
        return page

    def post(self, url: str, *, csrf: bool = False) -> None:
        """A refused form (403 page): a GM's action sent by someone else, or without its CSRF token."""
        client = self.client
        if csrf:
            client = Client(enforce_csrf_checks=True)
            client.cookies = self.client.cookies
        response = client.post(url, {})
        if "text/html" in response.get("Content-Type", "") and response.status_code not in (301, 302, 303):
            self.pages += 1
            self.visited[f"POST {url}"] = response.status_code
            self.judge_text(page_text(response.content.decode()).chunks, f"POST {url}")

    def run(self, start: list[str]) -> None:
        seen: set[str] = set()
        shapes: dict[str, int] = defaultdict(int)
        todo: list[tuple[str, bool]] = [(u, False) for u in start]
        while todo:
            url, fragment = todo.pop(0)
            if url in seen:
                continue
            seen.add(url)
            page = self.get(url, fragment)
            if page is None:
                continue
            candidates = [(link, False) for link in page.links] + [(f, True) for f in page.fragments]
            for link, is_fragment in candidates:
                parsed = urlparse(link)
                if parsed.netloc or not parsed.path.startswith("/") or SKIP.search(parsed.path):
                    continue
                # Pages by path; fragments with the query a control sends (one per option).
                target = parsed.path + (f"?{parsed.query}" if is_fragment and parsed.query else "")
                shape = re.sub(r"/\d+(?=/|$)", "/N", parsed.path)
                if is_fragment:
                    query = re.sub(r"=\d+", "=N", parsed.query)
                    shape = f"fragment {shape}?{query}"
                if target in seen or any(t == target for t, _f in todo) or shapes[shape] >= PER_SHAPE:
                    continue
                shapes[shape] += 1
                todo.append((target, is_fragment))

    def judge_mail(self, message: Any, where: str) -> None:
        texts = [message.subject, message.body] + [body for body, _type in getattr(message, "alternatives", [])]
        chunks: list[Chunk] = []
        for text in texts:
            if "<" in text and ">" in text:
                chunks += page_text(text).chunks
            else:
                chunks += [Chunk(line) for line in text.splitlines() if line.strip() and "://" not in line]
        self.judge_text(chunks, where)


def _error_urls() -> list[str]:
    """Pages that answer 404 or, to some readers, 403."""
    from campaigns.models import Campaign

    urls = ["/no-such-page/", "/campaigns/no-such-table/", "/characters/999999/", "/campaigns/threads/999999/"]
    for campaign in Campaign.objects.order_by("pk")[:2]:
        urls += [f"/campaigns/{campaign.slug}/settings/", f"/campaigns/{campaign.slug}/boards/"]
    return [*urls, "/moderation/queue/", "/moderation/log/"]


def _mails(user: Any, lang: str) -> list[Any]:
    """Every e-mail the site sends ``user`` (digest, immediate notification,
    turn nudge, password reset), rendered in ``lang``."""
    from django.core import mail

    from campaigns.models import Notification, NotificationSettings
    from campaigns.tasks import send_digest_to
    from rhythm.models import SceneRhythm
    from rhythm.tasks import send_notification_email, send_nudge_email

    mail.outbox = []
    Notification.objects.filter(user=user).update(emailed_at=None, read_at=None)
    NotificationSettings.objects.update_or_create(user=user, defaults={"email_digest": True})
    assert send_digest_to(user.pk), f"no digest for {user}"
    Notification.objects.filter(user=user).update(emailed_at=None)
    for kind in set(Notification.objects.filter(user=user).values_list("kind", flat=True)):
        item = Notification.objects.filter(user=user, kind=kind).first()
        assert item is not None and send_notification_email(item.pk)
    scene = SceneRhythm.objects.filter(thread__campaign__memberships__user=user).first()
    if scene is not None:
        send_nudge_email(scene.pk, user.pk)
    client = Client()
    client.cookies["tablee_language"] = lang
    client.post("/accounts/password/reset/", {"email": user.email}, headers={"Accept-Language": lang})
    return list(mail.outbox)


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
    names = re.compile("(?<!\\w)(?:" + "|".join(re.escape(s) for s in short) + ")(?!\\w)")
    errors = _error_urls()
    from combat.models import Encounter

    gm_only_post = f"/combat/{Encounter.objects.order_by('pk').first().pk}/reveal/"  # type: ignore[union-attr]

    report: list[str] = []
    pages = mails = 0
    gm_refs = 0
    for username in ("mj", "joueuse", "joueur", "spectatrice", "passante", "admin", None):
        for lang in ("fr", "en"):
            client = Client()
            user = None
            if username:
                user = User.objects.get(username=username)
                user.profile.language = lang
                user.profile.save()
                client.force_login(user)
            client.cookies["tablee_language"] = lang
            crawl = Crawl(client, lang, corpus, names, gm=username == "mj")
            crawl.run(["/", "/campaigns/", "/characters/", "/profile/", "/moderation/", *errors])
            crawl.post(gm_only_post)
            crawl.post("/profile/", csrf=True)
            if user is not None and username in ("mj", "joueuse", "joueur"):
                for message in _mails(user, lang):
                    mails += 1
                    crawl.judge_mail(message, f"e-mail {message.subject!r}")
            pages += crawl.pages
            visited = crawl.visited
            if username in ("mj", "joueuse"):
                # What the crawl must have met: the printable sheet, htmx fragments (the GM's test
                # form for each test kind), and the error pages.
                assert any(u.endswith("/print/") for u in visited), (username, lang)
                assert any("/sheet-test-fields/" in u or "/roll-fields/?test_kind=" in u for u in visited)
                assert 404 in visited.values(), (username, lang)
            if username in ("joueuse", "joueur"):
                assert list(visited.values()).count(403) == 2, (username, lang)  # the GM's action, the CSRF failure
            if username == "mj":
                gm_refs += crawl.refs_seen
            for (kind, chunk), url in sorted(crawl.found.items()):
                report.append(f"{username or 'visitor'} [{lang}] {kind}: {chunk!r} at {url}")
    print(f"crawl: {pages} pages and fragments, {mails} e-mails, {gm_refs} rules references met by the GM")
    assert pages > 400
    assert mails >= 12
    assert not report, f"{len(report)} leftovers:\n" + "\n".join(report)
    assert gm_refs > 0, "the GM never met a rules reference"
