"""Every moderation write, one function each (Zulip "actions" style).

Each function checks permissions (``Http404`` for what the actor may not see,
``PermissionDenied`` for a visible but forbidden write, ``ValidationError``
with a dict of field errors for bad input), writes inside
``transaction.atomic()`` and records one :class:`~moderation.models.AuditLog`
entry (who, what, when, why, on what) in the same transaction.

Readings chosen:

* moderation tools on accounts (suspend, delete spam account) do not exist
  for non-moderators: they answer 404;
* a spam account's posts are deleted unless they carry dice rolls (rolls are
  immutable and hash-chained, see DESIGN.md): those posts are hidden instead;
  its threads left empty, characters and campaigns without protected
  records (rolls, ledger) are deleted, the rest stays (characters
  ownerless);
* an account deleted by its owner keeps its posts and characters, shown as
  "deleted user" (``Post.author`` is SET_NULL); the GM of a campaign with other
  members must hand it over first; a campaign where they are alone is deleted,
  or locked if it holds rolls or ledger entries;
* an account that rolled dice is not deleted as a row but emptied into an
  inert tombstone (see :func:`_erase_user`): the roll chain hashes the
  roller's id, so nulling it would make every such roll look altered.
"""

from __future__ import annotations

import os
import time
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import Count, Max, ProtectedError, Q, QuerySet
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import display_name
from campaigns import access
from campaigns import services as campaign_services
from campaigns.models import (
    Campaign,
    ImmutableRecordError,
    Invitation,
    JoinRequest,
    Membership,
    Post,
    Role,
    Roll,
    Thread,
)
from characters.access import can_see_public
from characters.models import Character
from config.exporters import export_parts
from config.ratelimit import RateLimited, hit, parse_rate
from live.events import publish
from moderation.models import AuditLog, Report, Suspension, TableBan, active_suspension
from rules.base import is_digits

User = get_user_model()

MAX_REASON_LENGTH = 2000
MAX_SUSPENSION_DAYS = 3650
DEFAULT_REPORT_RATE = "5/10m"


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------
def _clock() -> float:
    """Current time in seconds (patched in tests to travel in time)."""
    return time.time()


def report_rate() -> tuple[int, int]:
    """``settings.TABLEE_REPORT_RATE`` or env ``TABLEE_RATE_REPORT`` (default 5 per 10 minutes; 0 = no limit)."""
    value = getattr(settings, "TABLEE_REPORT_RATE", None) or os.environ.get("TABLEE_RATE_REPORT", DEFAULT_REPORT_RATE)
    return parse_rate(value)


def check_report_rate(user: Any) -> None:
    """Count one report against the user's limit; ``ValidationError`` when over it."""
    count, period = report_rate()
    if count <= 0:
        return
    used, wait = hit(f"report:{user.pk}", period, _clock())
    if used > count:
        raise RateLimited(
            {
                "__all__": [
                    _(
                        "You have sent too many reports: at most %(count)d every %(minutes)d minutes. "
                        "Try again in %(wait)d seconds."
                    )
                    % {"count": count, "minutes": max(1, period // 60), "wait": wait}
                ]
            },
            retry_after=wait,
        )


def _clean_reason(reason: str, *, required: bool = True, field: str = "reason") -> str:
    reason = (reason or "").strip()
    if required and not reason:
        raise ValidationError({field: [_("Give a reason: it goes into the moderation log.")]})
    if len(reason) > MAX_REASON_LENGTH:
        raise ValidationError({field: [_("At most %(max)d characters.") % {"max": MAX_REASON_LENGTH}]})
    return reason


def record(
    actor: Any,
    action: str,
    *,
    reason: str = "",
    campaign: Campaign | None = None,
    thread: Thread | None = None,
    post: Post | None = None,
    target_user: Any = None,
    report: Report | None = None,
    target_label: str = "",
    data: dict[str, Any] | None = None,
) -> AuditLog:
    """Append one entry to the moderation log (call inside the action's transaction)."""
    return AuditLog.objects.create(
        actor=actor if actor is not None and actor.pk else None,
        actor_name=actor.get_username() if actor is not None else "",
        action=action,
        reason=reason,
        campaign=campaign,
        thread=thread,
        post=post,
        target_user=target_user,
        report=report,
        target_label=target_label[:200],
        data=data or {},
    )


def _require_moderator(actor: Any) -> None:
    if not access.is_moderator(actor):
        raise Http404


def _post_label(post: Post) -> str:
    return f"{post.thread.title} #{post.number}"


# ---------------------------------------------------------------------------
# Reports
# ---------------------------------------------------------------------------
def report_target(
    reporter: Any,
    *,
    post: Post | None = None,
    character: Any = None,
    campaign: Campaign | None = None,
    reason: str,
    details: str = "",
) -> Report:
    """A member reports a post, a character or a campaign (*signaler*).

    The reporter must be able to see the target (404 otherwise). One open
    report per reporter and target; reports are rate limited
    (:func:`check_report_rate`).
    """
    if reporter is None or not reporter.is_authenticated:
        raise PermissionDenied(_("Log in to report."))
    targets = [t for t in (post, character, campaign) if t is not None]
    if len(targets) != 1:
        raise ValidationError({"__all__": [_("Report exactly one post, character or campaign.")]})
    if post is not None:
        if not access.can_see_post(reporter, post):
            raise Http404
        kind, label, in_campaign = Report.Kind.POST, _post_label(post), post.campaign
        lookup: dict[str, Any] = {"post": post}
    elif character is not None:
        if not can_see_public(reporter, character):
            raise Http404
        kind, label, in_campaign = Report.Kind.CHARACTER, character.name, character.campaign
        lookup = {"character": character}
    else:
        assert campaign is not None
        if not access.can_view_campaign(reporter, campaign):
            raise Http404
        kind, label, in_campaign = Report.Kind.CAMPAIGN, campaign.title, campaign
        lookup = {"campaign": campaign, "kind": Report.Kind.CAMPAIGN}
    errors: dict[str, list[str]] = {}
    if reason not in Report.Reason.values:
        errors["reason"] = [_("Choose a reason.")]
    details = (details or "").strip()
    if len(details) > 2000:
        errors["details"] = [_("At most %(max)d characters.") % {"max": 2000}]
    elif reason == Report.Reason.OTHER and not details:
        errors["details"] = [_("Say what is wrong.")]
    if errors:
        raise ValidationError(errors)
    if Report.objects.filter(reporter=reporter, status=Report.Status.OPEN, **lookup).exists():
        raise ValidationError({"__all__": [_("You have already reported this; the moderators will look at it.")]})
    check_report_rate(reporter)
    with transaction.atomic():
        report = Report.objects.create(
            kind=kind,
            post=post,
            character=character,
            campaign=in_campaign,
            target_label=label[:200],
            reporter=reporter,
            reason=reason,
            details=details,
        )
    return report


def visible_reports(user: Any) -> QuerySet[Report]:
    """Moderators see every report; GMs and co-GMs those about things inside their campaigns.

    Reading: a report about the campaign itself, or about a post or character
    of the GM viewing, goes to the moderators only (a GM does not judge a
    complaint about themselves); GMs do not see who reported (templates show
    the reporter to moderators only).
    """
    reports = Report.objects.select_related("reporter", "campaign", "post", "post__thread", "character", "handled_by")
    if access.is_moderator(user):
        return reports
    if user is None or not user.is_authenticated:
        return reports.none()
    gm_of = Membership.objects.filter(user=user, role__in=access.GM_ROLES).values("campaign_id")
    return (
        reports.filter(campaign_id__in=gm_of)
        .exclude(kind=Report.Kind.CAMPAIGN)
        .exclude(post__author=user)
        .exclude(character__owner=user)
    )


def can_see_queue(user: Any) -> bool:
    """The queue exists for moderators and for the GMs/co-GMs of at least one campaign."""
    if access.is_moderator(user):
        return True
    return bool(
        user is not None
        and user.is_authenticated
        and Membership.objects.filter(user=user, role__in=access.GM_ROLES).exists()
    )


def get_report_for_user(user: Any, report_id: int | str) -> Report:
    if not is_digits(str(report_id)):
        raise Http404
    report = visible_reports(user).filter(pk=report_id).first()
    if report is None:
        raise Http404
    return report


def handle_report(actor: Any, report: Report, *, status: str, note: str = "") -> Report:
    """A moderator (or a GM of the report's campaign) resolves or dismisses a report."""
    if not visible_reports(actor).filter(pk=report.pk).exists():
        raise Http404
    if status not in (Report.Status.RESOLVED, Report.Status.DISMISSED):
        raise ValidationError({"status": [_("Choose resolved or dismissed.")]})
    note = _clean_reason(note, required=False, field="note")[:500]
    with transaction.atomic():
        report.status = status
        report.handled_by = actor
        report.handled_at = timezone.now()
        report.resolution_note = note
        report.save(update_fields=["status", "handled_by", "handled_at", "resolution_note"])
        record(
            actor,
            AuditLog.Action.REPORT_RESOLVED if status == Report.Status.RESOLVED else AuditLog.Action.REPORT_DISMISSED,
            reason=note,
            campaign=report.campaign,
            post=report.post,
            report=report,
            target_label=report.target_label,
            data={"kind": report.kind},
        )
    return report


def _close_reports(actor: Any, reports: QuerySet[Report], note: str) -> None:
    reports.filter(status=Report.Status.OPEN).update(
        status=Report.Status.RESOLVED, handled_by=actor, handled_at=timezone.now(), resolution_note=note[:500]
    )


# ---------------------------------------------------------------------------
# Posts, threads, campaigns
# ---------------------------------------------------------------------------
def hide_post(actor: Any, post: Post, *, reason: str, report: Report | None = None) -> Post:
    """Hide a post (*masquer*): GM/co-GM of its campaign or a moderator. Its rolls stay.

    Reuses :func:`campaigns.services.hide_post` (permissions and write) and adds
    the log entry; open reports on the post are closed.
    """
    if not access.can_see_post(actor, post):
        raise Http404
    if not access.can_hide_post(actor, post):
        raise PermissionDenied(_("Only the GM, co-GMs and moderators can hide a post."))
    if not access.can_change_hidden_state(actor, post):
        raise PermissionDenied(_("A moderator hid this post: only a moderator can change that."))
    reason = _clean_reason(reason)
    with transaction.atomic():
        campaign_services.hide_post(actor, post, hidden=True, reason=reason)
        record(
            actor,
            AuditLog.Action.POST_HIDDEN,
            reason=reason,
            campaign=post.campaign,
            thread=post.thread,
            post=post,
            target_user=post.author,
            report=report,
            target_label=_post_label(post),
        )
        _close_reports(actor, Report.objects.filter(post=post), reason)
        publish(f"thread:{post.thread_id}", "post-edited", {"thread": post.thread_id, "number": post.number})
    return post


def restore_post(actor: Any, post: Post, *, reason: str = "") -> Post:
    """Show a hidden post again (*rétablir*)."""
    if not access.can_see_post(actor, post):
        raise Http404
    if not access.can_hide_post(actor, post):
        raise PermissionDenied(_("Only the GM, co-GMs and moderators can hide a post."))
    if not access.can_change_hidden_state(actor, post):
        raise PermissionDenied(_("A moderator hid this post: only a moderator can change that."))
    reason = _clean_reason(reason, required=False)
    with transaction.atomic():
        campaign_services.hide_post(actor, post, hidden=False)
        record(
            actor,
            AuditLog.Action.POST_RESTORED,
            reason=reason,
            campaign=post.campaign,
            thread=post.thread,
            post=post,
            target_user=post.author,
            target_label=_post_label(post),
        )
        publish(f"thread:{post.thread_id}", "post-edited", {"thread": post.thread_id, "number": post.number})
    return post


def lock_thread(actor: Any, thread: Thread, *, locked: bool = True, reason: str = "") -> Thread:
    """Lock (or unlock) a thread (*verrouiller*): its GMs or a moderator."""
    campaign = thread.campaign
    if not access.can_read_forum(actor, campaign):
        raise Http404
    if not (access.is_moderator(actor) or access.is_gm(actor, campaign)):
        raise PermissionDenied(_("Only the GM, co-GMs and moderators can lock a thread."))
    reason = _clean_reason(reason, required=locked and not access.is_gm(actor, campaign))
    with transaction.atomic():
        Thread.objects.filter(pk=thread.pk).update(locked=locked)
        thread.locked = locked
        record(
            actor,
            AuditLog.Action.THREAD_LOCKED if locked else AuditLog.Action.THREAD_UNLOCKED,
            reason=reason,
            campaign=campaign,
            thread=thread,
            target_label=thread.title,
        )
        publish(f"thread:{thread.pk}", "thread-updated", {"thread": thread.pk})
    return thread


def lock_campaign(actor: Any, campaign: Campaign, *, locked: bool = True, reason: str = "") -> Campaign:
    """Lock (or unlock) a whole campaign: nobody posts in it any more. Moderators only."""
    if not access.can_view_campaign(actor, campaign):
        raise Http404
    if not access.is_moderator(actor):
        raise PermissionDenied(_("Only moderators can lock a campaign."))
    reason = _clean_reason(reason, required=locked)
    with transaction.atomic():
        Campaign.objects.filter(pk=campaign.pk).update(locked=locked)
        campaign.locked = locked
        record(
            actor,
            AuditLog.Action.CAMPAIGN_LOCKED if locked else AuditLog.Action.CAMPAIGN_UNLOCKED,
            reason=reason,
            campaign=campaign,
            target_label=campaign.title,
        )
        publish(f"campaign:{campaign.pk}", "campaign-updated", {"campaign": campaign.pk})
    return campaign


# ---------------------------------------------------------------------------
# Accounts: suspension, spam
# ---------------------------------------------------------------------------
def _require_can_act_on(actor: Any, target: Any) -> None:
    _require_moderator(actor)
    if target.pk == actor.pk:
        raise PermissionDenied(_("You cannot do this to your own account."))
    if (target.is_superuser or access.is_moderator(target)) and not actor.is_superuser:
        raise PermissionDenied(_("Only an administrator can do this to a moderator."))


def suspend_user(
    actor: Any, target: Any, *, reason: str, days: int | None = None, until: datetime | None = None
) -> Suspension:
    """Suspend an account for ``days`` (or ``until`` a date), or permanently when both are empty.

    A new suspension replaces the running one.
    """
    _require_can_act_on(actor, target)
    reason = _clean_reason(reason)
    now = timezone.now()
    if days is not None:
        try:
            days = int(days)
        except (TypeError, ValueError):
            raise ValidationError({"days": [_("Enter a whole number of days.")]}) from None
        if not 1 <= days <= MAX_SUSPENSION_DAYS:
            raise ValidationError({"days": [_("Between 1 and %(max)d days.") % {"max": MAX_SUSPENSION_DAYS}]})
        until = now + timedelta(days=days)
    elif until is not None and until <= now:
        raise ValidationError({"until": [_("Choose a date in the future.")]})
    with transaction.atomic():
        Suspension.objects.filter(user=target, lifted_at__isnull=True).update(lifted_at=now, lifted_by=actor)
        suspension = Suspension.objects.create(user=target, until=until, reason=reason, created_by=actor)
        record(
            actor,
            AuditLog.Action.USER_SUSPENDED,
            reason=reason,
            target_user=target,
            target_label=target.get_username(),
            data={"until": until.isoformat() if until else None, "permanent": until is None},
        )
    return suspension


def unsuspend_user(actor: Any, target: Any, *, reason: str = "") -> int:
    """Lift the user's running suspension(s); returns how many were lifted."""
    _require_can_act_on(actor, target)
    reason = _clean_reason(reason, required=False)
    if active_suspension(target) is None:
        raise ValidationError({"__all__": [_("This account is not suspended.")]})
    with transaction.atomic():
        lifted = Suspension.objects.filter(user=target, lifted_at__isnull=True).update(
            lifted_at=timezone.now(), lifted_by=actor
        )
        record(
            actor,
            AuditLog.Action.USER_UNSUSPENDED,
            reason=reason,
            target_user=target,
            target_label=target.get_username(),
        )
    return lifted


def _try_delete(obj: Any) -> bool:
    """Delete ``obj`` unless protected records (rolls, ledger...) depend on it."""
    try:
        with transaction.atomic():
            obj.delete()
    except (ProtectedError, ImmutableRecordError, IntegrityError):
        return False
    return True


def _erase_user(user: Any) -> str:
    """Remove an account: deleted outright, or made an inert tombstone if it rolled dice.

    A roll's hash covers its ``roller`` id (``campaigns.dice.roll_content``):
    deleting the account would null that field and break the campaign's
    chain. Such an account is emptied instead: its posts and characters are
    detached (shown as "deleted user"), every row that belongs only to it
    (profile, memberships, e-mail addresses, tokens, notifications...) is
    deleted, and the account keeps no personal data (username
    ``deleted-<id>``, no e-mail, unusable password, inactive). Returns
    ``"deleted"`` or ``"erased"``.
    """
    if not Roll.objects.filter(roller=user).exists():
        user.delete()
        return "deleted"
    Post.objects.filter(author=user).update(author=None)
    Character.objects.filter(owner=user).update(owner=None)
    for relation in user._meta.related_objects:
        if relation.many_to_many or relation.on_delete is not models.CASCADE:
            continue
        relation.related_model._base_manager.filter(**{relation.field.name: user}).delete()
    user.username = f"deleted-{user.pk}"
    user.email = ""
    user.first_name = user.last_name = ""
    user.is_active = user.is_staff = user.is_superuser = False
    user.set_unusable_password()
    user.save()
    user.user_permissions.clear()
    user.groups.clear()
    return "erased"


def _gm_campaigns(user: Any) -> QuerySet[Campaign]:
    """Campaigns the user is the GM of, annotated with ``n`` = their number of members."""
    gm_of = Membership.objects.filter(user=user, role=Role.GM).values("campaign_id")
    return Campaign.objects.filter(pk__in=gm_of).annotate(n=Count("memberships"))


def _recount_threads(thread_ids: set[int]) -> None:
    for thread in Thread.objects.filter(pk__in=thread_ids).annotate(n=Count("posts"), last=Max("posts__created")):
        Thread.objects.filter(pk=thread.pk).update(post_count=thread.n, last_post_at=thread.last)


def delete_spam_account(actor: Any, target: Any, *, reason: str) -> dict[str, int]:
    """Delete a spam account and its content in one step (moderators).

    Posts without rolls are deleted, posts with rolls hidden (rolls are never
    deleted); threads left empty, characters and campaigns it created alone
    are deleted when nothing immutable depends on them. Returns the counts.
    """
    _require_can_act_on(actor, target)
    reason = _clean_reason(reason)
    counts = {
        "posts_deleted": 0,
        "posts_hidden": 0,
        "threads_deleted": 0,
        "characters_deleted": 0,
        "campaigns_deleted": 0,
    }
    with transaction.atomic():
        posts = Post.objects.filter(author=target).annotate(n_rolls=Count("rolls"))
        touched_threads: set[int] = set()
        for post in posts:
            touched_threads.add(post.thread_id)
            if post.n_rolls:
                Post.objects.filter(pk=post.pk).update(hidden=True, hidden_by=actor, hidden_reason=reason[:300])
                counts["posts_hidden"] += 1
            else:
                Post.objects.filter(pk=post.pk).delete()
                counts["posts_deleted"] += 1
        for thread in Thread.objects.filter(pk__in=touched_threads).annotate(n=Count("posts")):
            if thread.n == 0 and _try_delete(thread):
                counts["threads_deleted"] += 1
                touched_threads.discard(thread.pk)
        _recount_threads(touched_threads)
        for character in Character.objects.filter(owner=target, rolls__isnull=True).distinct():
            counts["characters_deleted"] += _try_delete(character)
        lonely = _gm_campaigns(target).filter(n=1)
        for campaign in lonely:
            counts["campaigns_deleted"] += _try_delete(campaign)
        _close_reports(actor, Report.objects.filter(Q(post__author=target) | Q(character__owner=target)), reason)
        username = target.get_username()
        record(
            actor,
            AuditLog.Action.SPAM_DELETED,
            reason=reason,
            target_user=target,
            target_label=username,
            data={"username": username, "email": target.email, **counts},
        )
        _erase_user(target)
    return counts


# ---------------------------------------------------------------------------
# Table bans (GMs)
# ---------------------------------------------------------------------------
def remove_and_ban(actor: Any, campaign: Campaign, member: Any, *, reason: str = "") -> TableBan:
    """The GM (or a co-GM, for players and spectators) removes a member and bans them from the table.

    Also works on a non-member (e.g. someone who keeps asking to join). Pending
    invitations and join requests are cancelled.
    """
    if not access.can_view_campaign(actor, campaign):
        raise Http404
    if not access.is_gm(actor, campaign):
        raise PermissionDenied(_("Only the GM and co-GMs can do this."))
    if member.pk == actor.pk:
        raise ValidationError({"user": [_("You cannot ban yourself.")]})
    role = access.role_of(member, campaign)
    if role == Role.GM:
        raise PermissionDenied(_("The GM cannot be removed."))
    if role == Role.COGM and access.role_of(actor, campaign) != Role.GM:
        raise PermissionDenied(_("Only the GM can do this."))
    reason = _clean_reason(reason, required=False)[:500]
    with transaction.atomic():
        if role is not None:
            campaign_services.remove_member(actor, campaign, member)
        ban, created = TableBan.objects.get_or_create(
            campaign=campaign, user=member, defaults={"reason": reason, "banned_by": actor}
        )
        if not created:
            raise ValidationError({"user": [_("This person is already banned from the campaign.")]})
        Invitation.objects.filter(campaign=campaign, user=member, status=Invitation.Status.PENDING).update(
            status=Invitation.Status.CANCELLED
        )
        JoinRequest.objects.filter(campaign=campaign, user=member, status=JoinRequest.Status.PENDING).update(
            status=JoinRequest.Status.REFUSED, decided_by=actor, decided_at=timezone.now()
        )
        record(
            actor,
            AuditLog.Action.MEMBER_BANNED,
            reason=reason,
            campaign=campaign,
            target_user=member,
            target_label=member.get_username(),
            data={"role": role},
        )
        publish(f"campaign:{campaign.pk}", "members-changed", {"campaign": campaign.pk})
    campaign.__dict__.pop("_role_cache", None)
    return ban


def lift_ban(actor: Any, ban: TableBan, *, reason: str = "") -> None:
    """The GM or a co-GM lifts a ban (the person may be invited again)."""
    campaign = ban.campaign
    if not access.can_view_campaign(actor, campaign):
        raise Http404
    if not access.is_gm(actor, campaign):
        raise PermissionDenied(_("Only the GM and co-GMs can do this."))
    reason = _clean_reason(reason, required=False)
    with transaction.atomic():
        record(
            actor,
            AuditLog.Action.MEMBER_UNBANNED,
            reason=reason,
            campaign=campaign,
            target_user=ban.user,
            target_label=ban.user.get_username(),
        )
        ban.delete()


def is_banned(user: Any, campaign: Campaign | int) -> bool:
    campaign_id = campaign if isinstance(campaign, int) else campaign.pk
    return bool(
        user is not None
        and getattr(user, "pk", None)
        and TableBan.objects.filter(campaign_id=campaign_id, user_id=user.pk).exists()
    )


# ---------------------------------------------------------------------------
# Account data (*mes données*)
# ---------------------------------------------------------------------------
def export_account_data(user: Any) -> dict[str, Any]:
    """Everything the site holds about ``user`` that is theirs, as JSON-ready data.

    Each app contributes its part through :mod:`config.exporters` (registered
    in its ``AppConfig.ready``); this adds the envelope.
    """
    if user is None or not user.is_authenticated:
        raise PermissionDenied
    return {
        "format": "tablee-account-export",
        "version": 1,
        "exported_at": timezone.now().isoformat(),
        **export_parts(user),
    }


def delete_account(user: Any, *, password: str) -> dict[str, int]:
    """The member deletes their own account (*supprimer mon compte*).

    Their posts and characters stay, attributed to "deleted user". The GM of a
    campaign with other members must hand it over first; a campaign where
    they are alone is deleted (locked instead if rolls or ledger entries
    depend on it).
    """
    if user is None or not user.is_authenticated:
        raise PermissionDenied
    if not password or not user.check_password(password):
        raise ValidationError({"password": [_("Wrong password.")]})
    gm_campaigns = list(_gm_campaigns(user))
    shared = [c.title for c in gm_campaigns if c.n > 1]
    if shared:
        raise ValidationError(
            {
                "__all__": [
                    _("Hand these campaigns over to another member first: %(titles)s.") % {"titles": ", ".join(shared)}
                ]
            }
        )
    counts = {"campaigns_deleted": 0, "campaigns_locked": 0}
    with transaction.atomic():
        for campaign in gm_campaigns:
            if _try_delete(campaign):
                counts["campaigns_deleted"] += 1
            else:
                Campaign.objects.filter(pk=campaign.pk).update(locked=True)
                counts["campaigns_locked"] += 1
        username = user.get_username()
        record(
            user,
            AuditLog.Action.ACCOUNT_DELETED,
            target_user=user,
            target_label=username,
            data={"username": username, **counts},
        )
        counts["erased"] = int(_erase_user(user) == "erased")
    return counts


def deleted_user_name() -> str:
    """How posts of deleted accounts are signed."""
    return display_name(None)
