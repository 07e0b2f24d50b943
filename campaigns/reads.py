"""What a given reader may see of a campaign and of a thread: THE read models (read side, no writes).

One object per resource, rendered by every transport, so a visibility rule is written once:

* :func:`campaign_view` -> :class:`CampaignView`: the campaign header of every campaign page
  (``campaigns.views.common._campaign_context``) and the API's campaign (``CampaignSerializer``).
* :func:`post_views` -> :class:`PostView` / :class:`RollView`: a thread's posts as this reader may
  see them, rendered by the thread page, its live fragment (new posts) and the API's posts
  (``PostSerializer``); :func:`post_audience` says who hears the live events of a post.

Which posts a reader sees at all is the SQL of :mod:`campaigns.access` (``post_places``: a
moderated post keeps its place and rolls for those who saw it); what of each post they see is
decided here, in one pass over an already fetched page of posts (no query per post):

=====================  =====================================================================
GM-only post           its author, the GM and co-GMs
whisper                its author, its addressees, the GM and co-GMs
hidden (moderated)     its place, author and rolls for those who saw it; its text, reply link
                       and reason for the GM, co-GMs and moderators only
secret roll            its roller, the GM and co-GMs
secret sheet values    (``Field.secret``) in "what the roll read": roller and GMs only
=====================  =====================================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Prefetch, QuerySet
from django.utils.translation import get_language
from django.utils.translation import gettext as _

import rules
from campaigns import access, dice, play
from campaigns.models import Campaign, Membership, Post, Role, Roll
from config.auth import moderate_perm
from config.prepared import PreparedQuery


def _lang() -> str:
    return get_language() or "fr"


class Reader:
    """Who reads, and what they are in the campaign (computed once per request, without a query
    when the role was fetched with the thread and the moderator flag with the member)."""

    def __init__(self, user: Any, campaign: Campaign, role: str | None) -> None:
        self.user = user
        self.campaign = campaign
        self.role = role

    @cached_property
    def is_moderator(self) -> bool:
        return access.is_moderator(self.user)

    @cached_property
    def user_id(self) -> int | None:
        # Read once: a page asks it of every post (``request.user`` is a lazy object, each access a detour).
        return self.user.pk if self.user is not None and self.user.is_authenticated else None

    @property
    def is_gm(self) -> bool:
        return self.role in access.GM_ROLES

    @property
    def can_read_hidden(self) -> bool:
        """Who reads the text of a moderated post (:func:`campaigns.access.can_read_hidden`)."""
        return self.is_gm or self.is_moderator


def reader_for(user: Any, campaign: Campaign) -> Reader:
    return Reader(user, campaign, access.role_of(user, campaign))


# ---------------------------------------------------------------------------
# Campaign
# ---------------------------------------------------------------------------
@dataclass
class CampaignView:
    """What ``reader`` may see of a campaign they may see at all (``access.get_campaign_for_user``).

    The listing (title, pitch, system and its options, language, public, recruiting) and the
    table (its GM, how many members) are seen by whoever sees the campaign; the reader's role
    decides what they may do: write (players, co-GMs, GM, unless locked), manage (GM and
    co-GMs: settings, boards, GM aids), change the public listing (the GM alone).
    """

    campaign: Campaign
    reader: Reader

    @property
    def role(self) -> str | None:
        return self.reader.role

    @property
    def is_gm(self) -> bool:
        return self.reader.is_gm

    @property
    def is_main_gm(self) -> bool:
        return self.reader.role == Role.GM

    @property
    def can_post(self) -> bool:
        return self.reader.role in (Role.GM, Role.COGM, Role.PLAYER) and not self.campaign.locked

    @cached_property
    def system_name(self) -> dict[str, str]:
        try:
            return self.campaign.rule_system.name.to_dict()
        except Exception:  # an unknown system (a removed plug-in): its slug
            return {"fr": self.campaign.system, "en": self.campaign.system}

    @property
    def has_gm_aids(self) -> bool:
        return self.is_gm and self.campaign.rule_system.gm_aids() is not None

    @cached_property
    def gm(self) -> Any:
        """The GM (prefetched as ``gm_memberships`` by a listing, else one query)."""
        campaign = self.campaign
        if hasattr(campaign, "gm_memberships"):
            return campaign.gm_memberships[0].user if campaign.gm_memberships else None
        membership = Membership.objects.filter(campaign=campaign, role=Role.GM).select_related("user__profile").first()
        return membership.user if membership else None

    @cached_property
    def member_count(self) -> int:
        annotated = getattr(self.campaign, "member_count", None)
        return annotated if annotated is not None else self.campaign.memberships.count()

    def page_context(self) -> dict[str, Any]:
        """The campaign header every campaign page renders (no query beyond the role and the chain head)."""
        return {
            "campaign": self.campaign,
            "campaign_view": self,
            "role": self.role,
            "is_gm": self.is_gm,
            "is_main_gm": self.is_main_gm,
            "can_post": self.can_post,
            "system_name": self.campaign.rule_system.name.get(_lang()),
            "has_gm_aids": self.has_gm_aids,
            "chain_head": dice.chain_head(self.campaign),
        }


def campaign_view(user: Any, campaign: Campaign) -> CampaignView:
    """What ``user`` may see of ``campaign`` (one they may see: the caller checked it).

    A listing may annotate ``viewer_role`` (the reader's role) and ``member_count`` and prefetch
    ``gm_memberships``: then nothing here queries."""
    if hasattr(campaign, "viewer_role") and user is not None and user.is_authenticated:
        campaign.__dict__.setdefault("_role_cache", {}).setdefault(user.pk, campaign.viewer_role)
    role = access.role_of(user, campaign)
    return CampaignView(campaign=campaign, reader=Reader(user, campaign, role))


# ---------------------------------------------------------------------------
# Thread: posts and rolls
# ---------------------------------------------------------------------------
@dataclass
class RollView:
    """A roll of a post, as the reader may see it (secret rolls of others never get here)."""

    roll: Roll
    summary_text: str
    detail_text: str
    odds_text: str
    sheet_text: str
    sheet_version: Any
    sheet_link: bool
    gm_fields: list[dict[str, Any]]
    can_lower: bool
    can_set_difficulty: bool


@dataclass
class PostView:
    """A post's place in its thread as the reader may see it: its text only if they may read it."""

    post: Post
    content_withheld: bool
    body: str
    body_html: str
    hidden_reason: str
    reply_to_number: int | None
    recipients: list[Any]
    can_edit: bool
    can_hide: bool
    hide_locked: bool
    can_reply: bool
    is_new: bool
    rolls: list[RollView] = field(default_factory=list)
    #: The "Report" link (a member who is not the author; not on system posts).
    can_report: bool = False
    #: The "History" link of an edited post (its editors and the GMs).
    show_history: bool = False

    @property
    def recipient_ids(self) -> list[int]:
        return sorted(u.pk for u in self.recipients)


def thread_posts(user: Any, thread: Any, *, rollers: bool = False) -> QuerySet[Post]:
    """The posts of ``thread`` whose place ``user`` sees (:func:`campaigns.access.post_places`), with
    everything :func:`post_views` reads fetched in three queries (``rollers``: the rolls' rollers too),
    however many whispers the page holds."""
    rolls: Any = Prefetch("rolls", queryset=Roll.objects.select_related("roller__profile")) if rollers else "rolls"
    # The recipients with their profiles in one query (not one more when a page has whispers): the
    # same number of queries whatever the page holds.
    recipients = Prefetch("recipients", queryset=get_user_model()._default_manager.select_related("profile"))
    return (
        access.post_places(user, thread)
        .select_related("author__profile", "character", "reply_to", "hidden_by")
        # What no reader of a post's view reads: the search index, the character's sheet and texts (a
        # post shows its name and portrait), the text of the post replied to (its number is shown).
        .defer(*_UNREAD_COLUMNS)
        .prefetch_related(rolls, recipients)
    )


#: Columns :func:`thread_posts` leaves in the database (deferred: read on access, one query each).
_UNREAD_COLUMNS = (
    "search_vector",
    "character__sheet",
    "character__public_description",
    "character__private_background",
    "character__gm_comment",
    "reply_to__body",
    "reply_to__body_html",
    "reply_to__search_vector",
    "reply_to__hidden_reason",
)


def _page_query(kind: str) -> Any:
    """The build of a page of posts (numbers ``first..last``) for one kind of reader (``access.post_places_kind``)."""

    def build(thread_id: int, user_id: int, first: int, last: int) -> QuerySet[Post]:
        posts = Post.objects.filter(thread_id=thread_id)
        if kind != "all":
            posts = posts.filter(access.reader_condition(user_id if kind == "member" else None, include_hidden=True))
        return (
            posts.filter(number__gte=first, number__lte=last)
            .select_related("author__profile", "character", "reply_to", "hidden_by")
            .defer(*_UNREAD_COLUMNS)
            # Whether a moderator hid it (``access.can_change_hidden_state``), without a query per page.
            .annotate(hidden_by_moderate_perm=moderate_perm("hidden_by_id"))
            .order_by("number")
        )

    return build


def _page_rolls(thread_id: int, first: int, last: int) -> QuerySet[Roll]:
    # The rolls of every post in the range: only those of the posts fetched are attached.
    return Roll.objects.filter(post__thread_id=thread_id, post__number__gte=first, post__number__lte=last)


def _page_recipients(thread_id: int, first: int, last: int) -> QuerySet[Any]:
    return (
        Post.recipients.through.objects.filter(
            post__thread_id=thread_id, post__number__gte=first, post__number__lte=last
        )
        .select_related("user__profile")
        .order_by("post_id", "user_id")
    )


_PAGE_PROBES = {
    "thread_id": (850_000_001, 860_000_002),
    "user_id": (870_000_003, 880_000_004),
    "first": (890_000_005, 900_000_006),
    "last": (910_000_007, 920_000_008),
}
_RANGE_PROBES = {name: _PAGE_PROBES[name] for name in ("thread_id", "first", "last")}
_PAGE_QUERIES = {kind: PreparedQuery(_page_query(kind), _PAGE_PROBES) for kind in ("all", "member", "public")}
_ROLLS_QUERY = PreparedQuery(_page_rolls, _RANGE_PROBES)
_RECIPIENTS_QUERY = PreparedQuery(_page_recipients, _RANGE_PROBES)


def page_posts(user: Any, thread: Any, first: int, last: int) -> list[Post]:
    """The posts numbered ``first..last`` of ``thread`` whose place ``user`` sees, as
    ``thread_posts(user, thread).filter(number__gte=first, number__lte=last).order_by("number")``
    gives them (same rows; their rolls and recipients attached, read by :func:`post_rolls` and
    :func:`post_recipients`), in three queries each
    compiled once per process (:mod:`config.prepared`)."""
    kind = access.post_places_kind(user, thread.campaign)
    if kind is None:
        return []
    user_id = user.pk if kind == "member" else 0
    posts = _PAGE_QUERIES[kind].all(thread_id=thread.pk, user_id=user_id, first=first, last=last)
    if not posts:
        return posts
    rolls: dict[int, list[Roll]] = {}
    for roll in _ROLLS_QUERY.all(thread_id=thread.pk, first=first, last=last):
        rolls.setdefault(roll.post_id, []).append(roll)
    recipients: dict[int, list[Any]] = {}
    for row in _RECIPIENTS_QUERY.all(thread_id=thread.pk, first=first, last=last):
        recipients.setdefault(row.post_id, []).append(row.user)
    for post in posts:
        if post.hidden_by_id is not None and post.hidden_by is not None:
            post.hidden_by.tablee_moderate_perm = post.hidden_by_moderate_perm
        # Plain lists (see post_rolls): building a prefetch queryset per post cost more than the query.
        post.page_rolls = rolls.get(post.pk, [])  # type: ignore[attr-defined]
        post.page_recipients = recipients.get(post.pk, [])  # type: ignore[attr-defined]
    return posts


def post_rolls(post: Post) -> list[Roll]:
    """The rolls of ``post``: those :func:`page_posts` attached, else ``post.rolls`` (prefetched or not)."""
    rows = post.__dict__.get("page_rolls")
    return rows if rows is not None else list(post.rolls.all())


def post_recipients(post: Post) -> list[Any]:
    """The whisper's recipients of ``post`` (attached by :func:`page_posts`, else ``post.recipients``)."""
    rows = post.__dict__.get("page_recipients")
    return rows if rows is not None else list(post.recipients.all())


def post_views(reader: Reader, posts: list[Post], *, last_read: int | None = None) -> list[PostView]:
    """``posts`` (fetched with ``access.post_places``: rolls and recipients prefetched, reply_to and
    hidden_by selected) as ``reader`` may see them, in one pass without queries."""
    lang = _lang()
    secret = play.secret_paths(reader.campaign.system) if posts else frozenset()
    return [_post_view(reader, post, last_read, lang, secret) for post in posts]


def post_view(reader: Reader, post: Post) -> PostView:
    """One post (see :func:`post_views`)."""
    return post_views(reader, [post])[0]


def _post_view(reader: Reader, post: Post, last_read: int | None, lang: str, secret: frozenset[str]) -> PostView:
    role, user = reader.role, reader.user
    mine = reader.user_id is not None and post.author_id == reader.user_id
    can_edit = role is not None and (
        (mine and not post.is_system) or (role == Role.GM and post.visibility == Post.Visibility.GM_ONLY)
    )
    can_hide = reader.can_read_hidden
    # Moderated posts keep their place and rolls; their text is withheld.
    withheld = post.hidden and not reader.can_read_hidden
    rolls = post_rolls(post)
    # A lowered roll is superseded by its lowering (a later roll of the same post).
    lowered = {(r.request.get("lower_die") or {}).get("sequence") for r in rolls}
    reread = {(r.request.get("reevaluate") or {}).get("sequence") for r in rolls}
    gm_reread = {(r.request.get("gm_inputs") or {}).get("sequence") for r in rolls}
    shown = []
    for roll in rolls:
        roller = reader.user_id is not None and roll.roller_id == reader.user_id
        if roll.secret and not (reader.is_gm or roller):
            continue
        source = roll.request.get("from_sheet") if isinstance(roll.request, dict) else None
        hidden = frozenset() if reader.is_gm or roller else secret
        sheet_text = play.reads_text(source, lang, hidden) if isinstance(source, dict) else ""
        gm_fields: list[dict[str, Any]] = []
        if sheet_text and reader.is_gm and roll.sequence not in gm_reread:
            gm_fields = gm_field_controls(source.get("gm_fields"), source.get("declared") or {}, lang)
        shown.append(
            RollView(
                roll=roll,
                summary_text=(roll.resolution.get("summary") or {}).get(lang, ""),
                detail_text=plain_detail(roll.resolution.get("outcome", {}).get("detail", "")),
                odds_text=odds_text(roll.resolution.get("odds"), lang),
                sheet_text=sheet_text,
                sheet_version=source.get("version") if sheet_text else None,
                sheet_link=bool(sheet_text) and (reader.is_gm or roller),
                gm_fields=gm_fields,
                can_lower=roll.sequence not in lowered and can_lower_die(user, roll),
                # A sheet roll: the GM's inputs form sets the difficulty too.
                can_set_difficulty=roll.sequence not in reread
                and not sheet_text
                and can_set_difficulty(user, roll, is_gm=reader.is_gm),
            )
        )
    edit_shown = can_edit and not withheld
    return PostView(
        post=post,
        content_withheld=withheld,
        body="" if withheld else post.body,
        body_html="" if withheld else post.body_html,
        hidden_reason="" if withheld else post.hidden_reason,
        reply_to_number=post.reply_to.number if post.reply_to_id and post.reply_to and not withheld else None,
        recipients=post_recipients(post) if post.visibility == Post.Visibility.WHISPER else [],
        can_edit=edit_shown,
        can_hide=can_hide,
        # A moderator's hide is the moderators' to lift (GMs still read the post).
        hide_locked=can_hide and not access.can_change_hidden_state(user, post),
        can_reply=role in (Role.GM, Role.COGM, Role.PLAYER) and not withheld,
        is_new=last_read is not None and post.number > last_read,
        rolls=shown,
        can_report=reader.user_id is not None and not mine and not post.is_system,
        show_history=post.edited is not None and (edit_shown or reader.is_gm),
    )


# ---------------------------------------------------------------------------
# What a reader may do with a stored roll (the services check the same predicates)
# ---------------------------------------------------------------------------
def can_lower_die(user: Any, roll: Roll) -> bool:
    """Whether ``user`` may spend experience on ``roll`` (the system offers it; their own PC's test)."""
    if roll.kind != "system" or roll.post_id is None or roll.character_id is None:
        return False
    if user is None or not user.is_authenticated or roll.roller_id != user.pk:
        return False
    if roll.system not in rules.SYSTEM_MODULES or not isinstance(roll.resolution, dict):
        return False
    return rules.get_system(roll.system).can_lower_die(roll.resolution)


def can_set_difficulty(user: Any, roll: Roll, *, is_gm: bool) -> bool:
    """Whether a GM may set the difficulty of ``roll`` after it was rolled (the system re-evaluates it)."""
    if not is_gm or roll.kind != "system" or roll.post_id is None or roll.system not in rules.SYSTEM_MODULES:
        return False
    if not isinstance(roll.resolution, dict):
        return False
    return rules.get_system(roll.system).can_reevaluate(roll.resolution)


def can_add_gm_inputs(user: Any, roll: Roll, *, is_gm: bool) -> bool:
    """Whether a GM may add GM-only inputs to ``roll`` after it was rolled (a test built from a sheet)."""
    source = roll.request.get("from_sheet") if isinstance(roll.request, dict) else None
    return (
        is_gm
        and roll.kind == "system"
        and roll.post_id is not None
        and roll.system in rules.SYSTEM_MODULES
        and isinstance(source, dict)
        and isinstance(roll.resolution, dict)
        and isinstance(roll.resolution.get("draws"), list)
    )


def post_audience(post: Post) -> dict[str, Any]:
    """Who receives live events about this post (see ``live.events.publish``): the same readers as
    :func:`post_views` lets read it (the GMs always; a hidden post: the GMs only)."""
    if post.hidden:
        return {"gms_only": True}
    if post.visibility == Post.Visibility.GM_ONLY:
        return {"users": [post.author_id] if post.author_id else []}
    if post.visibility == Post.Visibility.WHISPER:
        return {"users": [post.author_id, *post.recipients.values_list("id", flat=True)]}
    return {}


def gm_field_controls(specs: Any, declared: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    """The GM-only inputs a GM may still add to a sheet roll, as simple form controls (from the stored specs)."""
    out = []
    for spec in specs if isinstance(specs, list) else []:
        if not isinstance(spec, dict) or spec.get("kind") not in ("int", "bool", "choice"):
            continue
        label = spec.get("label") or {}
        out.append(
            {
                "path": spec["path"],
                "kind": spec["kind"],
                "label": label.get(lang) or label.get("fr") or "",
                "minimum": spec.get("minimum"),
                "maximum": spec.get("maximum"),
                "value": declared.get(spec["path"], spec.get("default")),
                "choices": [(v, (m or {}).get(lang, v)) for v, m in spec.get("choices") or []],
            }
        )
    return out


def plain_detail(detail: Any) -> str:
    """d20's breakdown (``2d6 (**6**, 4) + 1 = `11```) without Markdown marks nor total: ``2d6 (6, 4) + 1``."""
    plain = str(detail or "").replace("**", "").replace("`", "").replace("~~", "")
    return plain.rsplit(" = ", 1)[0]  # the total is shown on its own


def odds_text(odds: Any, lang: str) -> str:
    """A short line of odds, when the system provides them."""
    if not isinstance(odds, dict):
        return ""
    summary = odds.get("summary")
    if isinstance(summary, dict) and summary.get(lang):
        return str(summary[lang])
    success = odds.get("success")
    if isinstance(success, int | float) and not isinstance(success, bool):
        percent = round(100 * float(success))
        return _("%(percent)d %% chance of success") % {"percent": percent}
    return ""
