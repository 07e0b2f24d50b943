"""Posts: writing (with rolls), editing, hiding; who hears of them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from campaigns import access, dice, markup
from campaigns.models import (
    Campaign,
    Membership,
    Notification,
    PlaySession,
    Post,
    PostVersion,
    Thread,
    ThreadRead,
)
from campaigns.reads import post_audience
from campaigns.services.common import _require_member_writer, _rules_errors
from campaigns.services.notifications import _notify
from campaigns.services.rolls import _check_character, _prepare_rolls
from config.ratelimit import RateLimited, hit, parse_rate
from live.events import publish
from rules.base import RulesError

MAX_RECIPIENTS = 50


def check_post_rate(user: Any) -> None:
    """At most ``settings.TABLEE_POST_RATE`` posts per period (default ``"10/m"``)."""
    count, period = parse_rate(getattr(settings, "TABLEE_POST_RATE", "10/m"))
    if count <= 0:
        return
    used, wait = hit(f"post:{user.pk}", period)
    if used > count:
        raise RateLimited(
            {
                "__all__": [
                    _(
                        "You are posting too fast: at most %(count)d posts every %(period)d seconds. "
                        "Try again in %(wait)d seconds."
                    )
                    % {"count": count, "period": period, "wait": wait}
                ]
            },
            retry_after=wait,
            code="rate_limited",
        )


def _mentionable(campaign: Campaign) -> dict[str, int]:
    return {
        username.lower(): pk
        for pk, username in Membership.objects.filter(campaign=campaign).values_list("user_id", "user__username")
    }


def _render(body: str, campaign: Campaign) -> tuple[str, set[int]]:
    members = _mentionable(campaign)
    mentioned = {members[name.lower()] for name in markup.find_mentions(body) if name.lower() in members}
    names = [name for name in markup.find_mentions(body) if name.lower() in members]
    return markup.render_markdown(body, mentionable=names), mentioned


def _clean_body(body: str) -> str:
    body = (body or "").replace("\r\n", "\n")
    if not body.strip():
        raise ValidationError({"body": [_("Write something: the post is empty.")]})
    limit = settings.TABLEE_MAX_POST_LENGTH
    if len(body) > limit:
        raise ValidationError(
            {
                "body": [
                    _("The post is too long: %(length)d characters, at most %(limit)d.")
                    % {"length": len(body), "limit": limit}
                ]
            }
        )
    return body


def _check_recipients(user: Any, campaign: Campaign, recipients: Iterable[Any]) -> list[int]:
    ids: set[int] = set()
    for item in recipients:
        pk = getattr(item, "pk", item)
        try:
            ids.add(int(pk))
        except (TypeError, ValueError):
            raise ValidationError({"recipients": [_("Choose members of the campaign.")]}) from None
    ids.discard(user.pk)
    if len(ids) > MAX_RECIPIENTS:
        raise ValidationError({"recipients": [_("Too many addressees.")]})
    found = set(Membership.objects.filter(campaign=campaign, user_id__in=ids).values_list("user_id", flat=True))
    if found != ids:
        raise ValidationError({"recipients": [_("Choose members of the campaign.")]})
    return sorted(ids)


def _update_search(post: Post) -> None:
    if getattr(settings, "USING_POSTGRES", False):
        from django.contrib.postgres.search import SearchVector

        Post.objects.filter(pk=post.pk).update(
            search_vector=SearchVector("body", config="french") + SearchVector("body", config="english")
        )


def create_post(
    user: Any,
    thread: Thread,
    *,
    body: str,
    character: Any = None,
    visibility: str = Post.Visibility.PUBLIC,
    recipients: Iterable[Any] = (),
    roll_requests: Sequence[dict[str, Any]] = (),
    reply_to: Post | None = None,
    system_message: bool = False,
    turn_for: Iterable[Any] = (),
    client_nonce: str | None = None,
) -> Post:
    """Write a post in a thread, with its rolls.

    ``roll_requests``: ``{"expression": "2d6+3", "label": "...", "secret": False}``
    or ``{"system_test": {...}, "character_id": ..., "secret": bool}``. Every
    request is validated before anything is saved, then rolled from the campaign's
    committed seed mixed with ``client_nonce`` (the browser's; see ``campaigns.dice``);
    the rolls are chained in the campaign and linked to the post and the open
    session. ``system_message``: a GM posts on behalf of the system (e.g. a
    combat round summary), without the locked-thread and rate checks.
    ``turn_for``: members told "your turn" (GMs only).
    """
    campaign = thread.campaign
    if system_message:
        if not access.can_view_campaign(user, campaign):
            raise Http404
        if not access.is_gm(user, campaign):
            raise PermissionDenied(_("Only the GM and co-GMs can do this."))
    else:
        _require_member_writer(user, campaign)
        if thread.locked and not access.is_gm(user, campaign):
            raise PermissionDenied(_("This thread is locked."))
    body = _clean_body(body)
    if visibility not in Post.Visibility.values:
        raise ValidationError({"visibility": [_("Choose who can read the post.")]})
    character = None if system_message else _check_character(user, campaign, character)
    recipient_ids = _check_recipients(user, campaign, recipients) if visibility == Post.Visibility.WHISPER else []
    if visibility == Post.Visibility.WHISPER and not recipient_ids:
        raise ValidationError({"recipients": [_("Choose who the whisper is for.")]})
    if reply_to is not None and (reply_to.thread_id != thread.pk or not access.can_see_post(user, reply_to)):
        raise ValidationError({"reply_to": [_("You can only reply to a post of this thread.")]})
    turn_ids: list[int] = []
    if turn_for:
        if not access.is_gm(user, campaign):
            raise PermissionDenied(_("Only the GM and co-GMs can do this."))
        turn_ids = _check_recipients(user, campaign, turn_for)
    rolls = _prepare_rolls(user, campaign, list(roll_requests))
    client_nonce = dice.clean_nonce(client_nonce)
    if not system_message:
        check_post_rate(user)
    html, mentioned = _render(body, campaign)
    now = timezone.now()
    with transaction.atomic():
        locked_thread = Thread.objects.select_for_update().get(pk=thread.pk)
        session = PlaySession.objects.filter(campaign=campaign, status=PlaySession.Status.OPEN).first()
        post = Post.objects.create(
            thread=thread,
            campaign=campaign,
            number=locked_thread.post_count + 1,
            author=user,
            character=character,
            visibility=visibility,
            body=body,
            body_html=html,
            reply_to=reply_to,
            session=session,
            is_system=system_message,
        )
        if recipient_ids:
            post.recipients.set(recipient_ids)
        Thread.objects.filter(pk=thread.pk).update(post_count=F("post_count") + 1, last_post_at=now)
        thread.post_count = locked_thread.post_count + 1
        thread.last_post_at = now
        for prepared in rolls:
            source = dice.fair_source(campaign, prepared["request"], client_nonce=client_nonce)
            try:
                rolled = dice.resolve_request(campaign, prepared["source_request"], rng=source)
            except RulesError as exc:  # validated above: only a draw-dependent rules error lands here
                raise ValidationError({"rolls": _rules_errors(exc) or [_("invalid test.")]}) from exc
            if isinstance(rolled.get("request"), dict):
                rolled["request"].pop("sheet", None)  # read from the character, not stored with the roll
            if "from_sheet" in prepared["request"]:  # what the test read, as prepared (and hashed by the source)
                rolled["request"] = {**rolled["request"], "from_sheet": prepared["request"]["from_sheet"]}
            dice.record_roll(
                campaign,
                roller=user,
                kind=rolled["kind"],
                system=rolled["system"],
                request=rolled["request"],
                resolution=rolled["resolution"],
                source=source,
                label=rolled["label"],
                secret=prepared["secret"],
                post=post,
                session=session,
                character=prepared["character"],
            )
        _update_search(post)
        ThreadRead.objects.update_or_create(user=user, thread=thread, defaults={"last_read_number": post.number})
        _notify_post(user, post, mentioned, recipient_ids, turn_ids)
        publish(f"thread:{thread.pk}", "post-created", {"thread": thread.pk, "number": post.number}, **_audience(post))
        publish(
            f"campaign:{campaign.pk}", "post-created", {"thread": thread.pk, "number": post.number}, **_audience(post)
        )
    return post


def publish_post_edited(post: Post) -> None:
    """Tell the thread's viewers who may see ``post`` that it changed (text, hidden state, a new roll)."""
    publish(
        f"thread:{post.thread_id}",
        "post-edited",
        {"thread": post.thread_id, "number": post.number},
        **_audience(post),
    )


def _audience(post: Post) -> dict[str, Any]:
    audience = post_audience(post)
    if audience.get("gms_only"):
        return {"gms_only": True}
    if "users" in audience:
        return {"users": audience["users"]}
    return {}


def _notify_post(user: Any, post: Post, mentioned: set[int], whispered: list[int], turn: list[int]) -> None:
    """Mentions, replies, whispers, turns: one notification per person (most specific kind)."""
    targets: dict[int, str] = {}
    for pk in mentioned:
        targets[pk] = Notification.Kind.MENTION
    if post.reply_to_id and post.reply_to.author_id:
        targets[post.reply_to.author_id] = Notification.Kind.REPLY
    for pk in whispered:
        targets[pk] = Notification.Kind.WHISPER
    for pk in turn:
        targets[pk] = Notification.Kind.TURN
    targets.pop(user.pk, None)
    if not targets:
        return
    members = {
        m.user_id: m
        for m in Membership.objects.filter(campaign=post.campaign, user_id__in=list(targets)).select_related("user")
    }
    for pk, kind in targets.items():
        member = members.get(pk)
        if member is None:
            continue
        if not access.can_see_post(member.user, post):
            continue
        _notify(member.user, kind, post.campaign, actor=user, thread=post.thread, post=post, text=post.thread.title)


def edit_post(user: Any, post: Post, *, body: str) -> Post:
    """The author (or a GM, for a GM-only post) edits; every version is kept; rolls never change."""
    if not access.can_see_post(user, post):
        raise Http404
    if not access.can_edit_post(user, post):
        raise PermissionDenied(_("You cannot edit this post."))
    body = _clean_body(body)
    if body == post.body:
        return post
    html, _mentioned = _render(body, post.campaign)
    with transaction.atomic():
        PostVersion.objects.create(post=post, body=post.body, edited_by=user)
        post.body = body
        post.body_html = html
        post.edited = timezone.now()
        post.save(update_fields=["body", "body_html", "edited"])
        _update_search(post)
        publish_post_edited(post)
    return post


def hide_post(user: Any, post: Post, *, hidden: bool = True, reason: str = "") -> Post:
    """GM, co-GM or moderator hides (or shows again) a post. Its rolls stay in the chain.

    The write only: callers go through :func:`moderation.services.hide_post` and
    ``restore_post`` (audit entry, reports closed, live event). A post a
    moderator hid is the moderators' to show again (or to hide anew).
    """
    if not access.can_see_post(user, post):
        raise Http404
    if not access.can_hide_post(user, post):
        raise PermissionDenied(_("Only the GM, co-GMs and moderators can hide a post."))
    if not access.can_change_hidden_state(user, post):
        raise PermissionDenied(_("A moderator hid this post: only a moderator can change that."))
    with transaction.atomic():
        post.hidden = hidden
        post.hidden_by = user if hidden else None
        post.hidden_reason = (reason or "")[:300] if hidden else ""
        post.save(update_fields=["hidden", "hidden_by", "hidden_reason"])
    return post
