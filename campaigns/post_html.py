"""The HTML of a thread's posts (thread page, its live fragment): each post rendered once per content.

Rendering a post's template costs far more than reading it (about 0.4 ms a post, 20 a page).
A post's HTML depends only on what its reader may see of it, which the read model already
decided (:class:`campaigns.reads.PostView`): so the HTML is kept, in this process, under a key
made of every value the template reads (:func:`fragment_key`): the post's own fields, its
author's and recipients' names, its character, its rolls as shown, the reader's rights on it
(edit, hide, lower a die...), whether it is new to them, the language and the time zone.

Invalidation is exact by construction: nothing is ever invalidated, a changed value is a new
key. An edit (new text, ``edited``), a hide or a moderator's action (``hidden``, the reason, the
reader's rights), a roll read again (its texts), a renamed member or character, a language or
time-zone switch each make another key; two readers share a fragment only when every value
they would see is equal (a whisper's text is in the key of its readers only: another reader's
view of it has other values, ``content_withheld`` or no post at all). The template
``campaigns/partials/post.html`` reads nothing else (no ``user``, ``request`` nor ``is_gm``:
the reader's rights are fields of the view), and the two values that differ per request
(the CSRF token of the post's forms, the page the "Report" link returns to) are placeholders
replaced on the way out. Each process keeps the last :data:`MAX_FRAGMENTS` fragments.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterable
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.template.loader import get_template
from django.urls import get_script_prefix, reverse
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from accounts.models import display_name
from campaigns.reads import PostView, RollView

TEMPLATE = "campaigns/partials/post.html"
#: Fragments kept per process (a few KB each).
MAX_FRAGMENTS = 4000


def _placeholder(name: str) -> str:
    """A marker no post can contain: NUL characters (refused in every text a member sends) around
    a value derived from the site's secret key (so no one can guess it to make it appear)."""
    digest = hmac.new(settings.SECRET_KEY.encode(), f"tablee-post-html-{name}".encode(), hashlib.sha256).hexdigest()
    return f"\x00{digest[:24]}\x00"


@lru_cache(maxsize=1)
def _placeholders() -> tuple[str, str]:
    return _placeholder("csrf"), _placeholder("next")


class _Fragments:
    """A bounded map key -> HTML, least recently used out first (shared by the threads of a process)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[bytes, str] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: bytes) -> str | None:
        with self.lock:
            html = self.items.get(key)
            if html is not None:
                self.items.move_to_end(key)
            return html

    def put(self, key: bytes, html: str) -> None:
        with self.lock:
            self.items[key] = html
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()


FRAGMENTS = _Fragments(MAX_FRAGMENTS)


# ---------------------------------------------------------------------------
# URLs of a post's links: reversed once per route, then formatted
# ---------------------------------------------------------------------------
_SENTINEL = 918273645546372819  # an id no row has: marks where the id goes in the reversed URL


@lru_cache(maxsize=64)
def _url_pattern(name: str, prefix: str) -> tuple[str, str] | None:
    url = reverse(name, args=[_SENTINEL])
    if url.count(str(_SENTINEL)) != 1:
        return None
    head, tail = url.split(str(_SENTINEL))
    return head, tail


def url_id(value: Any, name: str) -> str:
    """``reverse(name, args=[value])`` for a route taking one id, without resolving it each time."""
    pattern = _url_pattern(name, get_script_prefix())
    if pattern is None or not isinstance(value, int) or isinstance(value, bool):
        return reverse(name, args=[value])
    return f"{pattern[0]}{value}{pattern[1]}"


# ---------------------------------------------------------------------------
# The key: every value post.html reads
# ---------------------------------------------------------------------------
def _roll_key(rv: RollView) -> tuple[Any, ...]:
    roll = rv.roll
    outcome = roll.resolution.get("outcome") if isinstance(roll.resolution, dict) else None
    outcome = outcome if isinstance(outcome, dict) else {}
    return (
        roll.pk,
        roll.secret,
        roll.label,
        roll.kind,
        roll.sequence,
        roll.hash,
        roll.character_id,
        repr(outcome.get("total")),
        repr(outcome.get("nd")),
        rv.summary_text,
        rv.detail_text,
        rv.odds_text,
        rv.sheet_text,
        repr(rv.sheet_version),
        rv.sheet_link,
        repr(rv.gm_fields),
        rv.can_lower,
        rv.can_set_difficulty,
    )


def fragment_key(view: PostView, lang: str, zone: str) -> bytes:
    """The digest of every value ``post.html`` reads for ``view`` in ``lang`` and time zone ``zone``."""
    post = view.post
    character = post.character if post.character_id else None
    values = (
        lang,
        zone,
        get_script_prefix(),
        post.pk,
        post.thread_id,
        post.number,
        post.visibility,
        post.hidden,
        post.is_system,
        post.created,
        post.edited,
        post.author_id,
        display_name(post.author),
        character.name if character is not None else None,
        character.portrait.name if character is not None and character.portrait else None,
        view.is_new,
        view.content_withheld,
        view.body_html,
        view.hidden_reason,
        view.reply_to_number,
        tuple(display_name(r) for r in view.recipients),
        view.can_reply,
        view.can_edit,
        view.can_hide,
        view.hide_locked,
        view.can_report,
        view.show_history,
        tuple(_roll_key(rv) for rv in view.rolls),
    )
    return hashlib.blake2b(repr(values).encode(), digest_size=20).digest()


def _render(view: PostView, csrf: str, report_next: str) -> str:
    return get_template(TEMPLATE).render({"view": view, "csrf_token": csrf, "report_next": report_next})


def render_posts(views: Iterable[PostView], *, csrf_token: Any = None, full_path: str = "") -> SafeString:
    """The ``<li>`` of each post, in order (the fragments of this content kept, the others rendered)."""
    csrf_mark, next_mark = _placeholders()
    lang = get_language() or settings.LANGUAGE_CODE
    zone = timezone.get_current_timezone_name()
    parts = []
    for view in views:
        key = fragment_key(view, lang, zone)
        html = FRAGMENTS.get(key)
        if html is None:
            html = _render(view, csrf_mark, next_mark)
            FRAGMENTS.put(key, html)
        parts.append(html)
    out = "".join(parts)
    if csrf_mark in out:
        out = out.replace(csrf_mark, escape(str(csrf_token or "")))
    if next_mark in out:
        out = out.replace(next_mark, escape(quote(full_path)))
    return mark_safe(out)  # rendered by the template (escaped); the marks replaced by escaped values


def _template_changed(sender: Any, file_path: Any, **kwargs: Any) -> None:
    """Development server: an edited template is shown at once (Django resets its loaders likewise)."""
    FRAGMENTS.clear()
    FORMS.clear()
    FORM_KEYS.clear()


try:
    from django.utils.autoreload import file_changed

    file_changed.connect(_template_changed, dispatch_uid="tablee-post-html")
except ImportError:  # pragma: no cover
    pass


# ---------------------------------------------------------------------------
# The reply form of the thread page: rendered once per content as well
# ---------------------------------------------------------------------------
FORM_TEMPLATE = "campaigns/partials/post_form.html"
#: Reply forms kept per process (one per distinct form: campaign, voices, members, language...).
FORMS = _Fragments(500)
_ONCE = re.compile(r'(<input type="hidden" name="once" value=")[^"]*(">)')


@lru_cache(maxsize=1)
def _form_placeholders() -> tuple[str, str]:
    return _placeholder("form-csrf"), _placeholder("form-once")


def _plain(value: Any) -> Any:
    """``value`` with lazy translations made text (their ``repr`` names an address, not the text)."""
    if isinstance(value, Promise):
        return str(value)
    if isinstance(value, list | tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), _plain(v)) for k, v in value.items()))
    return value


def form_key(form: Any, thread: Any, lang: str) -> bytes | None:
    """The digest of every value ``post_form.html`` (and the partials it includes) reads from an unbound
    :class:`campaigns.forms.PostForm`: each field's kind, label, help, choices, value, widget attributes
    and bounds, the sheet test's groups and reads, the thread, the campaign's slug, the language.
    ``None`` for a form that is bound (its errors and the member's text are never kept)."""
    if form.is_bound:
        return None
    fields = []
    for name, field in form.fields.items():
        bound = form[name]
        fields.append(
            (
                name,
                type(field).__name__,
                type(field.widget).__name__,
                _plain(field.label),
                _plain(field.help_text),
                field.required,
                field.disabled,
                _plain(getattr(field, "choices", None)),
                _plain(bound.value()),
                _plain(field.widget.attrs),
                bound.auto_id,
            )
        )
    values = (
        lang,
        get_script_prefix(),
        thread.pk,
        form.campaign.slug,
        form.is_gm,
        tuple(fields),
        _plain(form.sheet_test_groups),
        _plain(form.sheet_reads()),
        tuple(b.name for b in form.declared_inputs()),
        getattr(form.sheet_chosen, "key", None),
    )
    return hashlib.blake2b(repr(values).encode(), digest_size=20).digest()


#: Made-of key -> form key (``_reply_form``'s inputs -> :func:`form_key`), so a kept form is not even built.
FORM_KEYS: dict[bytes, bytes] = {}
MAX_FORM_KEYS = 2000


class ReplyForm:
    """The thread page's unbound reply form, made only if its HTML is not kept (:func:`render_reply_form`).

    ``made_of`` digests every value the form is made of (``campaigns.views.postform._reply_form``);
    ``build()`` makes the :class:`campaigns.forms.PostForm`. Once a form of that make was rendered, its
    :func:`form_key` is remembered, and the next page with the same make takes the kept HTML unbuilt.
    """

    is_bound = False

    def __init__(self, made_of: bytes, build: Any, campaign: Any) -> None:
        self.made_of, self._build, self.campaign = made_of, build, campaign
        self._form: Any = None

    def __bool__(self) -> bool:
        return True

    def form(self) -> Any:
        if self._form is None:
            self._form = self._build()
        return self._form


def render_reply_form(context: Any) -> SafeString:
    """The thread page's reply form: an unbound form's HTML kept per :func:`form_key` (the CSRF token
    and the one-time token placeholders, filled per request); a bound form is rendered each time."""
    form, thread = context.get("form"), context.get("thread")
    lang = get_language() or settings.LANGUAGE_CODE
    made_of = None
    if isinstance(form, ReplyForm):
        made_of = form.made_of
        known = FORM_KEYS.get(made_of)
        html = FORMS.get(known) if known is not None and context.get("reply_post") is None else None
        if html is not None:
            return _fill_form(html, context)
        form = form.form()
        context["form"] = form
    key = form_key(form, thread, lang) if form is not None and thread is not None else None
    if key is not None and made_of is not None:
        if len(FORM_KEYS) >= MAX_FORM_KEYS:
            FORM_KEYS.clear()
        FORM_KEYS[made_of] = key
    if key is None or context.get("reply_post") is not None:
        return mark_safe(context.template.engine.get_template(FORM_TEMPLATE).render(context))  # as {% include %}
    csrf_mark, once_mark = _form_placeholders()
    html = FORMS.get(key)
    if html is None:
        html = get_template(FORM_TEMPLATE).render(
            {"form": form, "thread": thread, "campaign": form.campaign, "csrf_token": csrf_mark}
        )
        html = _ONCE.sub(lambda m: m.group(1) + once_mark + m.group(2), html)
        FORMS.put(key, html)
    return _fill_form(html, context)


def _fill_form(html: str, context: Any) -> SafeString:
    csrf_mark, once_mark = _form_placeholders()
    html = html.replace(csrf_mark, escape(str(context.get("csrf_token") or "")))
    html = html.replace(once_mark, secrets.token_urlsafe(18))
    return mark_safe(html)  # rendered by the template (escaped); the marks replaced by escaped or URL-safe values
