"""Pages of the rhythm of play; each write is one call to :mod:`rhythm.services`."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns import access
from campaigns.models import Membership, Role
from rhythm import kinds, services
from rhythm.forms import AbsenceForm, PreferencesForm, SceneForm
from rhythm.middleware import SESSION_KEY
from rhythm.models import Absence, MemberRhythm, NotificationPreference


def _thread(request: HttpRequest, thread_id: int):  # type: ignore[no-untyped-def]
    return access.get_thread_for_user(request.user, thread_id)


def _apply_errors(form, exc: ValidationError) -> None:  # type: ignore[no-untyped-def]
    for field, errors in exc.message_dict.items():
        form.add_error(field if field in form.fields else None, errors)


@login_required
def scene_settings(request: HttpRequest, thread_id: int) -> HttpResponse:
    """The GM sets the scene's posting order, deadline and what happens when it passes."""
    thread = _thread(request, thread_id)
    campaign = thread.campaign
    if not access.is_gm(request.user, campaign):
        raise Http404
    players = [
        m.user
        for m in Membership.objects.filter(campaign=campaign, role=Role.PLAYER)
        .select_related("user__profile")
        .order_by("joined", "id")
    ]
    scene = services.scene_for(thread)
    if request.method == "POST":
        form = SceneForm(request.POST, players=players)
        if form.is_valid():
            try:
                services.set_scene_rhythm(
                    request.user,
                    thread,
                    mode=form.cleaned_data["mode"],
                    order=form.ordered_ids(),
                    use_initiative=form.cleaned_data["use_initiative"],
                    deadline_hours=form.cleaned_data["deadline_hours"],
                    on_deadline=form.cleaned_data["on_deadline"],
                )
            except ValidationError as exc:
                _apply_errors(form, exc)
            else:
                messages.success(request, _("Scene rhythm saved."))
                return redirect("campaigns:thread", thread_id=thread.pk)
    else:
        initial = {
            "mode": scene.mode,
            "use_initiative": scene.use_initiative,
            "deadline_hours": scene.deadline_hours,
            "on_deadline": scene.on_deadline,
        }
        for position, pk in enumerate(scene.order or [], start=1):
            initial[f"pos_{pk}"] = position
        form = SceneForm(initial=initial, players=players)
    position_fields = [form[f"pos_{p.pk}"] for p in players]
    return render(
        request,
        "rhythm/scene_settings.html",
        {"thread": thread, "campaign": campaign, "form": form, "position_fields": position_fields, "is_gm": True},
    )


@login_required
@require_POST
def close_round(request: HttpRequest, thread_id: int) -> HttpResponse:
    thread = _thread(request, thread_id)
    try:
        services.close_round(request.user, thread)
    except PermissionDenied:
        raise Http404 from None
    except ValidationError as exc:
        messages.error(request, " ".join(m for errors in exc.message_dict.values() for m in errors))
    else:
        messages.success(request, _("A new round begins."))
    return redirect("campaigns:thread", thread_id=thread.pk)


@login_required
@require_POST
def nudge(request: HttpRequest, thread_id: int, user_id: int) -> HttpResponse:
    thread = _thread(request, thread_id)
    try:
        sent = services.nudge(request.user, thread, user_id)
    except PermissionDenied:
        raise Http404 from None
    except ValidationError as exc:
        messages.error(request, " ".join(m for errors in exc.message_dict.values() for m in errors))
    else:
        if sent:
            messages.success(request, _("Reminder sent."))
        else:
            messages.info(request, _("This member was already reminded this round."))
    target = request.POST.get("next", "")
    if target.startswith("/") and not target.startswith("//"):
        return redirect(target)
    return redirect("campaigns:thread", thread_id=thread.pk)


def scene_header(request: HttpRequest, thread_id: int) -> HttpResponse:
    """htmx fragment: whose turn it is (refreshed on the thread's ``scene-changed`` event)."""
    thread = _thread(request, thread_id)
    return render(
        request,
        "rhythm/partials/scene_header.html",
        {
            "thread": thread,
            "scene": services.scene_view(request.user, thread),
            "is_gm": access.is_gm(request.user, thread.campaign),
        },
    )


@login_required
def draft(request: HttpRequest, thread_id: int) -> JsonResponse:
    """GET: the member's draft for this thread; POST: keep it (the browser saves as they type)."""
    thread = _thread(request, thread_id)
    if request.method == "POST":
        try:
            saved = services.save_draft(request.user, thread, body=request.POST.get("body", ""))
        except ValidationError as exc:
            return JsonResponse({"saved": False, "errors": exc.message_dict}, status=400)
        return JsonResponse({"saved": saved is not None})
    return JsonResponse({"body": services.get_draft(request.user, thread)})


@login_required
def absences(request: HttpRequest) -> HttpResponse:
    campaigns = [m.campaign for m in Membership.objects.filter(user=request.user).select_related("campaign")]
    form = AbsenceForm(request.POST or None, campaigns=campaigns)
    if request.method == "POST" and form.is_valid():
        try:
            services.declare_absence(
                request.user,
                starts=form.cleaned_data["starts"],
                ends=form.cleaned_data["ends"],
                campaign=form.cleaned_data["campaign"],
                message=form.cleaned_data["message"],
            )
        except ValidationError as exc:
            _apply_errors(form, exc)
        else:
            messages.success(request, _("Absence saved: your tables will know."))
            return redirect("rhythm:absences")
    return render(request, "rhythm/absences.html", {"form": form, "absences": services.current_absences(request.user)})


@login_required
@require_POST
def absence_delete(request: HttpRequest, absence_id: int) -> HttpResponse:
    absence = get_object_or_404(Absence, pk=absence_id, user=request.user)
    services.cancel_absence(request.user, absence)
    messages.success(request, _("Absence removed."))
    return redirect("rhythm:absences")


@login_required
def preferences(request: HttpRequest) -> HttpResponse:
    """Per kind of notification: in the site, e-mail at once, digest, off; time zone and quiet hours."""
    current = dict(NotificationPreference.objects.filter(user=request.user).values_list("kind", "delivery"))
    member = MemberRhythm.objects.filter(user=request.user).first()
    initial = {f"kind_{k}": current.get(k, kinds.DEFAULT_DELIVERY) for k in kinds.LABELS}
    if member:
        initial.update(timezone=member.timezone, quiet_start=member.quiet_start, quiet_end=member.quiet_end)
    form = PreferencesForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            services.set_member_rhythm(
                request.user,
                timezone_name=form.cleaned_data["timezone"].strip(),
                quiet_start=form.cleaned_data["quiet_start"],
                quiet_end=form.cleaned_data["quiet_end"],
            )
            services.set_preferences(request.user, form.choices())
            request.session[SESSION_KEY] = form.cleaned_data["timezone"].strip()
        except ValidationError as exc:
            _apply_errors(form, exc)
        else:
            messages.success(request, _("Notification settings saved."))
            return redirect("rhythm:preferences")
    return render(request, "rhythm/preferences.html", {"form": form})


@login_required
@require_POST
def detect_timezone(request: HttpRequest) -> HttpResponse:
    chosen = services.detect_timezone(request.user, request.POST.get("timezone", "")[:64])
    if chosen:
        request.session[SESSION_KEY] = chosen
    return HttpResponse(status=204)


def member_label(user_id: int) -> str:
    user = get_user_model().objects.filter(pk=user_id).first()
    return str(user) if user else ""
