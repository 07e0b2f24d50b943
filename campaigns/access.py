"""Who may see and change what in a campaign (see shared DESIGN.md).

Every view starts with one of these helpers. What a user may not see answers
404, never 403, so private campaigns do not leak their existence.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, Q, Subquery
from django.http import Http404

from campaigns.dice import cache_head, head_annotations
from campaigns.models import Campaign, Membership, Post, Role, Thread, ThreadRead
from config.prepared import PreparedQuery
from rules.base import is_digits

GM_ROLES = frozenset({Role.GM, Role.COGM})
MEMBER_ROLES = frozenset({Role.GM, Role.COGM, Role.PLAYER, Role.SPECTATOR})


def is_moderator(user: Any) -> bool:
    """Site staff: moderators and admins.

    Reads the flag :func:`config.auth.load_user` annotated on the request's
    user when it is there (no query), else asks the permission system.
    """
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    if user.is_superuser or user.is_staff:
        return True
    flag = getattr(user, "tablee_moderate_perm", None)
    if flag is not None:
        return bool(flag)
    return bool(user.has_perm("campaigns.moderate"))


def role_of(user: Any, campaign: Campaign) -> str | None:
    """The user's role in the campaign, or ``None``. Cached on the campaign."""
    if user is None or not user.is_authenticated:
        return None
    cache: dict[int, str | None] = campaign.__dict__.setdefault("_role_cache", {})
    if user.pk not in cache:
        cache[user.pk] = Membership.objects.filter(campaign=campaign, user=user).values_list("role", flat=True).first()
    return cache[user.pk]


def is_gm(user: Any, campaign: Campaign) -> bool:
    """GM or co-GM of the campaign."""
    return role_of(user, campaign) in GM_ROLES


def is_member(user: Any, campaign: Campaign) -> bool:
    """Spectator and up."""
    return role_of(user, campaign) in MEMBER_ROLES


def can_view_campaign(user: Any, campaign: Campaign) -> bool:
    """Public campaigns are seen by everyone; private ones by members and moderators."""
    return campaign.is_public or is_member(user, campaign) or is_moderator(user)


def can_read_forum(user: Any, campaign: Campaign) -> bool:
    """Ordinary posts: campaign members; public campaigns: everyone."""
    return can_view_campaign(user, campaign)


def get_campaign_for_user(user: Any, campaign_id: int | str, *, write: bool = False) -> Campaign:
    """Return the campaign if the user may see it (``write``: change it), else 404.

    ``campaign_id`` may be the primary key or the slug.
    """
    lookup = {"pk": campaign_id} if is_digits(str(campaign_id)) else {"slug": campaign_id}
    campaign = Campaign.objects.filter(**lookup).first()
    if campaign is None or not can_view_campaign(user, campaign):
        raise Http404
    if write and not is_gm(user, campaign):
        raise Http404
    return campaign


# ---------------------------------------------------------------------------
# Posts and rolls
# ---------------------------------------------------------------------------
def can_post(user: Any, campaign: Campaign) -> bool:
    """Players, co-GMs and GMs write; spectators and outsiders only read."""
    return role_of(user, campaign) in (Role.GM, Role.COGM, Role.PLAYER) and not campaign.locked


def _visibility(user: Any, campaign: Campaign, *, include_hidden: bool = False) -> Any:
    """``None`` (nothing visible), ``True`` (everything) or the ``Q`` of visible posts.

    ``include_hidden`` keeps moderated posts whose place (not text) the user
    may see: the thread page shows them as a notice with their rolls.
    """
    if not can_read_forum(user, campaign):
        return None
    if is_gm(user, campaign):
        return True
    user_id = user.pk if user is not None and user.is_authenticated else None
    return reader_condition(user_id, include_hidden=include_hidden or is_moderator(user))


def reader_condition(user_id: int | None, *, include_hidden: bool) -> Any:
    """The ``Q`` of the posts a reader who is not a GM sees (:func:`_visibility`): public posts, and
    for a member (``user_id``) their own posts and the whispers addressed to them; moderated posts
    only with ``include_hidden``."""
    condition = Q(visibility=Post.Visibility.PUBLIC)
    if user_id is not None:
        whispered = Post.recipients.through.objects.filter(post_id=OuterRef("pk"), user_id=user_id)
        condition |= Q(author_id=user_id) | (Q(visibility=Post.Visibility.WHISPER) & Exists(whispered))
    if not include_hidden:
        condition &= Q(hidden=False)
    return condition


def post_places_kind(user: Any, campaign: Campaign) -> str | None:
    """Which condition :func:`post_places` applies for ``user``: ``None`` (nothing), ``"all"`` (a GM),
    ``"member"`` (a logged-in reader: :func:`reader_condition` with their id) or ``"public"``."""
    # As _visibility decides, without building its condition (the page's query has it compiled).
    if not can_read_forum(user, campaign):
        return None
    if is_gm(user, campaign):
        return "all"
    return "member" if user is not None and user.is_authenticated else "public"


def _apply(posts: Any, condition: Any) -> Any:
    if condition is None:
        return posts.none()
    if condition is True:
        return posts
    return posts.filter(condition)


def visible_posts_in_campaign(user: Any, campaign: Campaign) -> Any:
    """The posts of the campaign the user may see (a queryset).

    * ordinary posts: whoever may read the campaign;
    * GM-only posts: GM, co-GM and the author;
    * whispers: addressees, author, GM and co-GM;
    * hidden posts (moderated): GM, co-GM and moderators only.
    """
    return _apply(Post.objects.filter(campaign=campaign), _visibility(user, campaign))


def visible_posts(user: Any, thread: Any) -> Any:
    """The posts of ``thread`` the user may see (rules of :func:`visible_posts_in_campaign`).

    Filters on the thread only, so the ``(thread, number)`` index serves page ranges.
    """
    return _apply(Post.objects.filter(thread=thread), _visibility(user, thread.campaign))


def post_places(user: Any, thread: Any) -> Any:
    """Posts of ``thread`` whose place the user sees: :func:`visible_posts` plus
    moderated posts that were otherwise visible. A hidden post keeps its place
    and its rolls; only GMs and moderators read its text (``content_withheld``
    is decided by the caller with :func:`can_read_hidden`)."""
    return _apply(Post.objects.filter(thread=thread), _visibility(user, thread.campaign, include_hidden=True))


def can_read_hidden(user: Any, campaign: Campaign) -> bool:
    """Who reads the text of a moderated post: GMs, co-GMs and moderators."""
    return is_gm(user, campaign) or is_moderator(user)


def can_see_post(user: Any, post: Any) -> bool:
    return visible_posts(user, post.thread).filter(pk=post.pk).exists()


def can_see_roll(user: Any, roll: Any) -> bool:
    """Like the post it is in; a secret roll: roller, GM and co-GM only."""
    campaign = roll.campaign
    if roll.secret:
        return bool(user is not None and user.is_authenticated and (user.pk == roll.roller_id or is_gm(user, campaign)))
    if roll.post_id is not None:
        # A moderated post keeps its rolls visible where its place is.
        return post_places(user, roll.post.thread).filter(pk=roll.post_id).exists()
    return can_read_forum(user, campaign)


def can_edit_post(user: Any, post: Any) -> bool:
    """The author edits; a GM-only post may also be edited by the GM (not a co-GM: DESIGN.md's
    "GM-only post — can change: author, GM", where the rows around it name the co-GM when they mean it)."""
    if user is None or not user.is_authenticated or (post.is_system and not is_gm(user, post.campaign)):
        return False
    if post.author_id == user.pk:
        return role_of(user, post.campaign) is not None
    return post.visibility == Post.Visibility.GM_ONLY and role_of(user, post.campaign) == Role.GM


def can_hide_post(user: Any, post: Any) -> bool:
    return is_gm(user, post.campaign) or is_moderator(user)


def can_change_hidden_state(user: Any, post: Any) -> bool:
    """A post a moderator hid is the moderators' to show again: GMs and co-GMs may not."""
    if not post.hidden or post.hidden_by_id is None or is_moderator(user):
        return True
    return not is_moderator(post.hidden_by)


#: Relations fetched with a thread. Apps that hang one-to-one data on threads
#: add theirs from their ``AppConfig.ready`` (e.g. ``rhythm`` adds ``"rhythm"``).
THREAD_RELATED: list[str] = ["campaign", "board"]


def get_thread_for_user(user: Any, thread_id: int, *, reader: bool = False) -> Any:
    """The thread if the user may read its campaign, else 404.

    ``reader``: also fetch, in the same query, the user's role in the campaign
    (cached for :func:`role_of`), their last read post (``thread.reader_last_read``)
    and the dice chain head the page shows (``campaigns.dice.chain_head``).
    """
    authenticated = user is not None and user.is_authenticated
    if reader and authenticated:
        # The thread page's query, compiled once per process (config.prepared).
        thread = _reader_query().first(thread_id=int(thread_id), user_id=user.pk)
        if thread is None:
            raise Http404
        cache_head(thread.campaign, thread)
        thread.campaign.__dict__.setdefault("_role_cache", {})[user.pk] = thread.reader_role
        if not can_read_forum(user, thread.campaign):
            raise Http404
        return thread
    qs = Thread.objects.select_related(*THREAD_RELATED).filter(pk=thread_id)
    if reader and authenticated:
        qs = qs.annotate(
            reader_role=Subquery(
                Membership.objects.filter(campaign_id=OuterRef("campaign_id"), user_id=user.pk).values("role")[:1]
            ),
            reader_last_read=Subquery(
                ThreadRead.objects.filter(thread_id=OuterRef("pk"), user_id=user.pk).values("last_read_number")[:1]
            ),
        )
    if reader:
        qs = qs.annotate(**head_annotations("campaign_id"))
    thread = qs.first()
    if thread is None:
        raise Http404
    if reader:
        cache_head(thread.campaign, thread)
    if reader and authenticated:
        thread.campaign.__dict__.setdefault("_role_cache", {})[user.pk] = thread.reader_role
    if not can_read_forum(user, thread.campaign):
        raise Http404
    return thread


def _reader_thread(thread_id: int, user_id: int) -> Any:
    """A thread with its reader's role and last read post, and the dice chain head (one query)."""
    return (
        Thread.objects.select_related(*THREAD_RELATED)
        .filter(pk=thread_id)
        .annotate(
            reader_role=Subquery(
                Membership.objects.filter(campaign_id=OuterRef("campaign_id"), user_id=user_id).values("role")[:1]
            ),
            reader_last_read=Subquery(
                ThreadRead.objects.filter(thread_id=OuterRef("pk"), user_id=user_id).values("last_read_number")[:1]
            ),
            **head_annotations("campaign_id"),
        )
    )


_READER_QUERIES: dict[tuple[str, ...], PreparedQuery] = {}


def _reader_query() -> PreparedQuery:
    """The prepared :func:`_reader_thread` for the relations fetched with threads now (``THREAD_RELATED``)."""
    related = tuple(THREAD_RELATED)
    if related not in _READER_QUERIES:
        _READER_QUERIES[related] = PreparedQuery(
            _reader_thread, {"thread_id": (810_000_001, 820_000_002), "user_id": (830_000_003, 840_000_004)}
        )
    return _READER_QUERIES[related]


def get_post_for_user(user: Any, post_id: int) -> Any:
    """The post if the user may see it, else 404."""
    post = Post.objects.select_related("thread", "campaign", "thread__campaign").filter(pk=post_id).first()
    if post is None or not can_see_post(user, post):
        raise Http404
    return post
