"""Moderation pages: report forms, the queue, actions, the audit log, the
suspension notice and "my data". Thin: every write is one service call."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, time
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model, logout
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db.models import Q
from django.forms import Form
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns import access
from campaigns.models import Membership, Post
from characters.access import get_character_for_user
from moderation import services
from moderation.forms import (
    AuditFilterForm,
    DeleteAccountForm,
    HandleReportForm,
    QueueFilterForm,
    ReasonForm,
    ReportForm,
    SuspendForm,
)
from moderation.middleware import suspension_message
from moderation.models import AuditLog, Report, Suspension, TableBan, active_suspension

User = get_user_model()


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------
def _apply(form: Form, call: Callable[[], Any]) -> tuple[bool, Any]:
    """Run a service call; field errors go onto ``form``. Returns (ok, result).

    Rate limits (:class:`moderation.services.RateLimited`) propagate to the view.
    """
    try:
        return True, call()
    except services.RateLimited:
        raise
    except ValidationError as exc:
        if hasattr(exc, "error_dict"):
            for field, errors in exc.message_dict.items():
                form.add_error(None if field == "__all__" or field not in form.fields else field, errors)
        else:
            form.add_error(None, exc.messages)
        return False, None
    except PermissionDenied as exc:
        form.add_error(None, str(exc) or _("You cannot do this."))
        return False, None


def _next_url(request: HttpRequest, default: str) -> str:
    url = request.POST.get("next") or request.GET.get("next") or ""
    if url and url_has_allowed_host_and_scheme(url, allowed_hosts={request.get_host()}):
        return url
    return default


def _require_moderator(request: HttpRequest) -> None:
    if not access.is_moderator(request.user):
        raise Http404


def _user_or_404(user_id: int) -> Any:
    return get_object_or_404(User, pk=user_id)


# ---------------------------------------------------------------------------
# Reports
# ---------------------------------------------------------------------------
def _report_target(user: Any, kind: str, target_id: int) -> dict[str, Any]:
    if kind == "post":
        return {"post": access.get_post_for_user(user, target_id)}
    if kind == "character":
        return {"character": get_character_for_user(user, target_id)}
    if kind == "campaign":
        return {"campaign": access.get_campaign_for_user(user, target_id)}
    raise Http404


@login_required
def report_create(request: HttpRequest, kind: str, target_id: int) -> HttpResponse:
    """Report a post, a character or a campaign (*signaler*)."""
    target = _report_target(request.user, kind, target_id)
    form = ReportForm(request.POST or None)
    limited = False
    if request.method == "POST" and form.is_valid():
        try:
            ok, _report = _apply(form, lambda: services.report_target(request.user, **target, **form.cleaned_data))
        except services.RateLimited as exc:
            ok, limited = False, True
            form.add_error(None, exc.messages)
        if ok:
            if request.htmx:
                return render(request, "moderation/_report_done.html")
            messages.success(request, _("Thank you: your report was sent to the moderators."))
            return redirect(_next_url(request, "/"))
    status = 429 if limited else 400 if form.errors else 200
    if request.htmx:
        status = 200  # htmx swaps only 2xx answers: the fragment carries the errors
    template = "moderation/_report_form.html" if request.htmx else "moderation/report_form.html"
    context = {"form": form, "kind": kind, "target": next(iter(target.values())), "next": _next_url(request, "")}
    return render(request, template, context, status=status)


@login_required
def queue(request: HttpRequest) -> HttpResponse:
    """The moderation queue: every report for moderators, their campaigns' for GMs."""
    if not services.can_see_queue(request.user):
        raise Http404
    form = QueueFilterForm(request.GET or {"status": Report.Status.OPEN})
    reports = services.visible_reports(request.user)
    if form.is_valid():
        if form.cleaned_data["status"]:
            reports = reports.filter(status=form.cleaned_data["status"])
        if form.cleaned_data["kind"]:
            reports = reports.filter(kind=form.cleaned_data["kind"])
    page = Paginator(reports, 30).get_page(request.GET.get("page"))
    context = {"form": form, "page": page, "is_moderator": access.is_moderator(request.user)}
    if request.htmx:
        return render(request, "moderation/_queue_rows.html", context)
    return render(request, "moderation/queue.html", context)


@login_required
def report_detail(request: HttpRequest, report_id: int) -> HttpResponse:
    report = services.get_report_for_user(request.user, report_id)
    form = HandleReportForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        ok, _result = _apply(form, lambda: services.handle_report(request.user, report, **form.cleaned_data))
        if ok:
            messages.success(request, _("Report closed."))
            return redirect("moderation:queue")
    user = request.user
    post = report.post
    context = {
        "report": report,
        "form": form,
        "is_moderator": access.is_moderator(user),
        "can_hide": post is not None and access.can_hide_post(user, post),
        "can_lock_thread": post is not None and (access.is_moderator(user) or access.is_gm(user, post.campaign)),
        "reason_form": ReasonForm(),
        "suspend_form": SuspendForm(),
        "author": post.author if post is not None else (report.character.owner if report.character else None),
        "history": report.actions.select_related("actor"),
    }
    return render(request, "moderation/report_detail.html", context, status=400 if form.errors else 200)


# ---------------------------------------------------------------------------
# Content actions
# ---------------------------------------------------------------------------
def _post_action(request: HttpRequest, post_id: int, *, hide: bool) -> HttpResponse:
    post = access.get_post_for_user(request.user, post_id)
    if not access.can_hide_post(request.user, post):
        raise Http404
    form = ReasonForm(request.POST or None, required=hide)
    if request.method == "POST" and form.is_valid():
        report = None
        if request.POST.get("report"):
            report = services.visible_reports(request.user).filter(pk=request.POST["report"]).first()
        reason = form.cleaned_data["reason"]

        def call() -> object:
            if hide:
                return services.hide_post(request.user, post, reason=reason, report=report)
            return services.restore_post(request.user, post, reason=reason)

        ok, _result = _apply(form, call)
        if ok:
            messages.success(request, _("Post hidden.") if hide else _("Post restored."))
            return redirect(_next_url(request, "moderation:queue"))
    context = {"form": form, "post": post, "hide": hide, "next": _next_url(request, "")}
    return render(request, "moderation/post_action.html", context, status=400 if form.errors else 200)


@login_required
def post_hide(request: HttpRequest, post_id: int) -> HttpResponse:
    return _post_action(request, post_id, hide=True)


@login_required
def post_restore(request: HttpRequest, post_id: int) -> HttpResponse:
    return _post_action(request, post_id, hide=False)


@login_required
@require_POST
def post_visibility(request: HttpRequest, post_id: int) -> HttpResponse:
    """The thread page's "Hide" / "Show again" (GM, co-GM, moderator): recorded in the audit log,
    back to the post with a message."""
    post = access.get_post_for_user(request.user, post_id)
    reason = request.POST.get("reason", "")
    try:
        if request.POST.get("hidden", "1") == "1":
            services.hide_post(request.user, post, reason=reason)
            messages.success(request, _("Post hidden. Its rolls stay visible."))
        else:
            services.restore_post(request.user, post, reason=reason)
            messages.success(request, _("Post shown again."))
    except ValidationError as exc:
        for error in exc.messages:
            messages.error(request, error)
    return redirect("campaigns:post", post_id=post.pk)


@login_required
@require_POST
def thread_lock(request: HttpRequest, thread_id: int) -> HttpResponse:
    thread = access.get_thread_for_user(request.user, thread_id)
    if not (access.is_moderator(request.user) or access.is_gm(request.user, thread.campaign)):
        raise Http404
    locked = request.POST.get("locked", "1") == "1"
    form = ReasonForm(request.POST, required=False)
    form.is_valid()
    ok, _result = _apply(
        form, lambda: services.lock_thread(request.user, thread, locked=locked, reason=request.POST.get("reason", ""))
    )
    if ok:
        messages.success(request, _("Thread locked.") if locked else _("Thread unlocked."))
    else:
        for error in form.errors.get("reason", []) + form.non_field_errors():
            messages.error(request, error)
    return redirect(_next_url(request, "moderation:queue"))


@login_required
@require_POST
def campaign_lock(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, campaign_id)
    _require_moderator(request)
    locked = request.POST.get("locked", "1") == "1"
    form = ReasonForm(request.POST, required=False)
    form.is_valid()
    ok, _result = _apply(
        form,
        lambda: services.lock_campaign(request.user, campaign, locked=locked, reason=request.POST.get("reason", "")),
    )
    if ok:
        messages.success(request, _("Campaign locked.") if locked else _("Campaign unlocked."))
    else:
        for error in form.errors.get("reason", []) + form.non_field_errors():
            messages.error(request, error)
    return redirect(_next_url(request, "moderation:queue"))


# ---------------------------------------------------------------------------
# Table bans (GMs)
# ---------------------------------------------------------------------------
@login_required
def bans(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The GM's page: members to remove and ban, bans to lift."""
    campaign = access.get_campaign_for_user(request.user, campaign_id, write=True)
    members = Membership.objects.filter(campaign=campaign).exclude(user=request.user).select_related("user")
    context = {
        "campaign": campaign,
        "members": members,
        "bans": TableBan.objects.filter(campaign=campaign).select_related("user", "banned_by"),
        "form": ReasonForm(required=False),
    }
    return render(request, "moderation/bans.html", context)


@login_required
def ban_member(request: HttpRequest, campaign_id: int, user_id: int) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, campaign_id, write=True)
    member = _user_or_404(user_id)
    form = ReasonForm(request.POST or None, required=False)
    if request.method == "POST" and form.is_valid():
        ok, _ban = _apply(
            form, lambda: services.remove_and_ban(request.user, campaign, member, reason=form.cleaned_data["reason"])
        )
        if ok:
            messages.success(
                request, _("%(name)s was removed and banned from the campaign.") % {"name": member.get_username()}
            )
            return redirect("moderation:bans", campaign_id=campaign.pk)
    context = {"campaign": campaign, "member": member, "form": form}
    return render(request, "moderation/ban_confirm.html", context, status=400 if form.errors else 200)


@login_required
@require_POST
def lift_ban(request: HttpRequest, ban_id: int) -> HttpResponse:
    ban = get_object_or_404(TableBan.objects.select_related("campaign", "user"), pk=ban_id)
    campaign = access.get_campaign_for_user(request.user, ban.campaign_id, write=True)
    form = ReasonForm(request.POST, required=False)
    form.is_valid()
    ok, _result = _apply(form, lambda: services.lift_ban(request.user, ban, reason=request.POST.get("reason", "")))
    if ok:
        messages.success(request, _("Ban lifted."))
    return redirect("moderation:bans", campaign_id=campaign.pk)


# ---------------------------------------------------------------------------
# Accounts (moderators)
# ---------------------------------------------------------------------------
@login_required
def users(request: HttpRequest) -> HttpResponse:
    _require_moderator(request)
    q = (request.GET.get("q") or "").strip()
    found = User.objects.none()
    if q:
        found = User.objects.filter(Q(username__icontains=q) | Q(email__icontains=q)).order_by("username")[:50]
    return render(request, "moderation/users.html", {"q": q, "found": found})


@login_required
def user_detail(request: HttpRequest, user_id: int) -> HttpResponse:
    _require_moderator(request)
    target = _user_or_404(user_id)
    context = {
        "target": target,
        "suspension": active_suspension(target),
        "suspensions": Suspension.objects.filter(user=target).select_related("created_by", "lifted_by"),
        "suspend_form": SuspendForm(),
        "reason_form": ReasonForm(required=False, auto_id="lift_%s"),
        "spam_form": ReasonForm(auto_id="spam_%s"),
        "post_count": Post.objects.filter(author=target).count(),
        "log": AuditLog.objects.filter(target_user=target)[:20],
    }
    return render(request, "moderation/user_detail.html", context)


def _user_action(request: HttpRequest, user_id: int, form: Form, call: Callable[[Any], Any], done: str) -> HttpResponse:
    _require_moderator(request)
    target = _user_or_404(user_id)
    if form.is_valid():
        ok, _result = _apply(form, lambda: call(target))
        if ok:
            messages.success(request, done)
            return redirect("moderation:user", user_id=target.pk)
    for error in form.non_field_errors():
        messages.error(request, error)
    for name, errors in form.errors.items():
        if name != "__all__":
            for error in errors:
                messages.error(request, f"{form.fields[name].label}: {error}")
    return redirect("moderation:user", user_id=target.pk)


@login_required
@require_POST
def suspend(request: HttpRequest, user_id: int) -> HttpResponse:
    form = SuspendForm(request.POST)
    return _user_action(
        request,
        user_id,
        form,
        lambda target: services.suspend_user(
            request.user, target, reason=form.cleaned_data["reason"], days=form.days()
        ),
        _("Account suspended."),
    )


@login_required
@require_POST
def unsuspend(request: HttpRequest, user_id: int) -> HttpResponse:
    form = ReasonForm(request.POST, required=False)
    return _user_action(
        request,
        user_id,
        form,
        lambda target: services.unsuspend_user(request.user, target, reason=form.cleaned_data["reason"]),
        _("Suspension lifted."),
    )


@login_required
@require_POST
def delete_spam(request: HttpRequest, user_id: int) -> HttpResponse:
    _require_moderator(request)
    target = _user_or_404(user_id)
    form = ReasonForm(request.POST)
    if form.is_valid():
        name = target.get_username()
        ok, counts = _apply(
            form, lambda: services.delete_spam_account(request.user, target, reason=form.cleaned_data["reason"])
        )
        if ok:
            messages.success(
                request,
                _(
                    "Account %(name)s deleted with its content (%(posts)d posts deleted, "
                    "%(hidden)d hidden because they hold rolls)."
                )
                % {"name": name, "posts": counts["posts_deleted"], "hidden": counts["posts_hidden"]},
            )
            return redirect("moderation:log")
    for error in form.non_field_errors() + form.errors.get("reason", []):
        messages.error(request, error)
    return redirect("moderation:user", user_id=target.pk)


# ---------------------------------------------------------------------------
# Audit log
# ---------------------------------------------------------------------------
@login_required
def audit_log(request: HttpRequest) -> HttpResponse:
    """Browse and filter the moderation log (moderators)."""
    _require_moderator(request)
    form = AuditFilterForm(request.GET or None)
    entries = AuditLog.objects.select_related("actor", "campaign", "target_user")
    if form.is_valid():
        data = form.cleaned_data
        if data["action"]:
            entries = entries.filter(action=data["action"])
        if data["actor"]:
            entries = entries.filter(actor_name__iexact=data["actor"].strip())
        if data["target"]:
            entries = entries.filter(target_label__icontains=data["target"].strip())
        if data["campaign"]:
            entries = entries.filter(campaign__slug=data["campaign"].strip())
        tz = timezone.get_current_timezone()
        if data["since"]:
            entries = entries.filter(created__gte=datetime.combine(data["since"], time.min, tzinfo=tz))
        if data["until"]:
            entries = entries.filter(created__lte=datetime.combine(data["until"], time.max, tzinfo=tz))
    page = Paginator(entries, 50).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {"form": form, "page": page, "query": query.urlencode()}
    if request.htmx:
        return render(request, "moderation/_log_rows.html", context)
    return render(request, "moderation/log.html", context)


# ---------------------------------------------------------------------------
# Suspension notice, my data
# ---------------------------------------------------------------------------
@login_required
def suspended(request: HttpRequest) -> HttpResponse:
    suspension = active_suspension(request.user)
    if suspension is None:
        return redirect("home")
    return render(
        request, "moderation/suspended.html", {"suspension": suspension, "message": suspension_message(suspension)}
    )


@login_required
def my_data(request: HttpRequest) -> HttpResponse:
    return render(request, "moderation/my_data.html", {"form": DeleteAccountForm()})


@login_required
def export(request: HttpRequest) -> HttpResponse:
    data = services.export_account_data(request.user)
    response = HttpResponse(
        json.dumps(data, ensure_ascii=False, indent=2, default=str), content_type="application/json; charset=utf-8"
    )
    filename = f"tablee-{request.user.get_username()}-{timezone.now():%Y%m%d}.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@login_required
@require_POST
def delete_account(request: HttpRequest) -> HttpResponse:
    form = DeleteAccountForm(request.POST)
    if form.is_valid():
        user = request.user
        ok, _counts = _apply(form, lambda: services.delete_account(user, password=form.cleaned_data["password"]))
        if ok:
            logout(request)
            messages.success(request, _("Your account has been deleted. Farewell!"))
            return redirect("home")
    return render(request, "moderation/my_data.html", {"form": form}, status=400)
