"""Combat pages: thin views over :mod:`combat.services` and :mod:`combat.presenters`.

Write views answer htmx requests with the refreshed live fragment (and the
message of a refused action); plain form posts redirect to the encounter.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns.access import can_read_forum, is_gm
from campaigns.models import Campaign
from characters.outcomes import revive_character
from combat import services
from combat.forms import AdjustForm, DeclarationForm, EncounterForm, ParticipantForm, StepForm, thread_for
from combat.models import Declaration, Encounter, Round
from combat.presenters import encounter_context
from rules.base import get_path, is_digits


def _errors(exc: ValidationError) -> list[str]:
    if hasattr(exc, "message_dict"):
        out = []
        for field, msgs in exc.message_dict.items():
            prefix = "" if field == "__all__" else f"{field}: "
            out.extend(prefix + m for m in msgs)
        return out
    return list(exc.messages)


def thread_url(thread: Any) -> str | None:
    """The campaigns app's thread page, if it exists yet."""
    for name, args in (("campaigns:thread", [thread.pk]), ("campaigns:thread", [thread.campaign.slug, thread.pk])):
        try:
            return reverse(name, args=args)
        except NoReverseMatch:
            continue
    return None


@login_required
def index(request: HttpRequest) -> HttpResponse:
    """Encounters of the user's campaigns, running ones first."""
    campaigns = Campaign.objects.filter(memberships__user=request.user)
    encounters = (
        Encounter.objects.filter(campaign__in=campaigns)
        .select_related("campaign", "thread")
        .order_by("status", "-created")[:100]
    )
    return render(request, "combat/index.html", {"encounters": encounters})


def thread_encounters(request: HttpRequest, thread_id: int) -> HttpResponse:
    """The encounters of a thread, and the GM's form to open one."""
    thread = thread_for(thread_id)
    if thread is None or not can_read_forum(request.user, thread.campaign):
        raise Http404
    gm = is_gm(request.user, thread.campaign)
    form = EncounterForm(request.POST or None)
    if request.method == "POST":
        if not gm:
            raise Http404 if not request.user.is_authenticated else PermissionDenied
        if form.is_valid():
            try:
                encounter = services.create_encounter(request.user, thread, title=form.cleaned_data["title"])
            except ValidationError as exc:
                for msg in _errors(exc):
                    form.add_error(None, msg)
            else:
                return redirect("combat:detail", pk=encounter.pk)
    encounters = thread.encounters.order_by("-created")
    return render(
        request,
        "combat/thread_encounters.html",
        {"thread": thread, "encounters": encounters, "form": form, "is_gm": gm, "thread_url": thread_url(thread)},
    )


def _page_context(request: HttpRequest, encounter: Encounter, **extra: Any) -> dict[str, Any]:
    context = encounter_context(request.user, encounter)
    system = services.system_for(encounter)
    current = context["round"]
    forms_by_participant = extra.pop("declaration_forms", {})
    declare = []
    if current is not None and current.phase == Round.Phase.DECLARATION:
        for item in context["controlled"]:
            p = item["p"]
            form = forms_by_participant.get(p.pk)
            if form is None:
                initial = {}
                decl = current.declarations.filter(participant=p).first()
                if decl is not None:
                    initial = {
                        f.path.replace(".", "__"): get_path(decl.data, f.path)
                        for f in system.action_fields()
                        if get_path(decl.data, f.path) is not None
                    }
                    initial["target"] = decl.target_id
                form = DeclarationForm(
                    initial=initial,
                    encounter=encounter,
                    action_fields=system.action_fields(),
                    gm=context["is_gm"],
                    options=system.action_options(p.current_sheet(), p.state or {}, encounter.campaign.system_settings),
                    prefix=f"p{p.pk}",
                )
            declare.append({"item": item, "form": form})
    context["declare"] = declare
    context["defend"] = _defence_prompts(request, encounter, current, context, extra.pop("defence_forms", {}))
    if context["is_gm"]:
        context["participant_form"] = extra.pop("participant_form", None) or ParticipantForm(encounter=encounter)
        context["adjust_form"] = extra.pop("adjust_form", None) or AdjustForm()
    context["thread_url"] = thread_url(encounter.thread)
    context.update(extra)
    return context


def _defence_options(system: Any, encounter: Encounter, declaration: Declaration) -> dict[str, Any]:
    target = declaration.target
    if target is None:
        return {}
    return system.action_options(
        target.current_sheet(), target.state or {}, encounter.campaign.system_settings, defending=True
    )


def _defence_prompts(
    request: HttpRequest, encounter: Encounter, current: Round | None, context: dict[str, Any], forms: dict[int, Any]
) -> list[dict[str, Any]]:
    """The defences awaited from this user (a GM: once the defender's delay has passed)."""
    if current is None or current.phase != Round.Phase.RESOLUTION:
        return []
    system = services.system_for(encounter)
    now = timezone.now()
    prompts = []
    pending = current.declarations.filter(defence_status="pending").select_related("participant", "target")
    for declaration in pending:
        target = declaration.target
        own = target is not None and target.controller_id == request.user.pk
        until = (declaration.defence_asked or now) + services.defence_delay()
        if not own and not (context["is_gm"] and now >= until):
            continue
        fields = services.defence_fields_for(system, declaration)
        form = forms.get(declaration.pk) or DeclarationForm(
            encounter=encounter,
            action_fields=fields,
            gm=context["is_gm"],
            with_target=False,
            options=_defence_options(system, encounter, declaration),
            prefix=f"d{declaration.pk}",
        )
        prompts.append({"declaration": declaration, "form": form, "own": own})
    return prompts


def detail(request: HttpRequest, pk: int) -> HttpResponse:
    encounter = services.get_encounter_for_user(request.user, pk)
    return render(request, "combat/encounter.html", _page_context(request, encounter))


def live_fragment(request: HttpRequest, pk: int) -> HttpResponse:
    """The live panel alone (participants, turn, order, log): htmx refreshes it on
    every ``combat-updated`` event and by polling."""
    encounter = services.get_encounter_for_user(request.user, pk)
    since = request.GET.get("since", "")
    if request.htmx and is_digits(since) and int(since) == encounter.last_sequence:
        return HttpResponse(status=204)  # nothing new: htmx keeps the page as it is
    return render(request, "combat/_live.html", encounter_context(request.user, encounter))


def declare_fragment(request: HttpRequest, pk: int) -> HttpResponse:
    """The declaration panel alone, refreshed when a round changes phase."""
    encounter = services.get_encounter_for_user(request.user, pk)
    current = encounter.current_round()
    seen = (request.GET.get("round", ""), request.GET.get("phase", ""))
    now = (str(current.number) if current else "0", current.phase if current else "none")
    if request.htmx and seen == now:
        return HttpResponse(status=204)  # same round and phase: keep the player's half-typed form
    return render(request, "combat/_declare.html", _page_context(request, encounter))


def _done(request: HttpRequest, encounter: Encounter, error: ValidationError | None = None) -> HttpResponse:
    if error is not None:
        for msg in _errors(error):
            messages.error(request, msg)
    if request.htmx:
        context = encounter_context(request.user, encounter)
        context["alerts"] = [m for m in _errors(error)] if error is not None else []
        # The messages were shown inline: consume them.
        list(messages.get_messages(request))
        return render(request, "combat/_live.html", context)
    return redirect("combat:detail", pk=encounter.pk)


def _gm_action(request: HttpRequest, pk: int, action: Any) -> HttpResponse:
    encounter = services.get_encounter_for_user(request.user, pk)
    if not is_gm(request.user, encounter.campaign):
        raise PermissionDenied
    try:
        action(encounter)
    except ValidationError as exc:
        encounter.refresh_from_db()
        return _done(request, encounter, exc)
    encounter.refresh_from_db()
    return _done(request, encounter)


def _step(request: HttpRequest) -> tuple[int | None, str]:
    form = StepForm(request.POST)
    if not form.is_valid():
        return None, ""
    return form.cleaned_data.get("step"), form.cleaned_data.get("reason") or ""


@login_required
@require_POST
def start(request: HttpRequest, pk: int) -> HttpResponse:
    return _gm_action(request, pk, lambda e: services.start_encounter(request.user, e))


@login_required
@require_POST
def reveal(request: HttpRequest, pk: int) -> HttpResponse:
    return _gm_action(request, pk, lambda e: services.reveal_declarations(request.user, e))


@login_required
@require_POST
def resolve(request: HttpRequest, pk: int) -> HttpResponse:
    step, _reason = _step(request)
    return _gm_action(request, pk, lambda e: services.resolve_next_step(request.user, e, expected_step=step))


@login_required
@require_POST
def resolve_all(request: HttpRequest, pk: int) -> HttpResponse:
    return _gm_action(request, pk, lambda e: services.resolve_round(request.user, e))


@login_required
@require_POST
def skip(request: HttpRequest, pk: int) -> HttpResponse:
    step, reason = _step(request)
    return _gm_action(request, pk, lambda e: services.skip_step(request.user, e, expected_step=step, reason=reason))


@login_required
@require_POST
def undo(request: HttpRequest, pk: int) -> HttpResponse:
    return _gm_action(request, pk, lambda e: services.undo_last_step(request.user, e))


@login_required
@require_POST
def end_round(request: HttpRequest, pk: int) -> HttpResponse:
    raw = request.POST.get("round", "")
    expected = int(raw) if is_digits(raw) else None
    return _gm_action(request, pk, lambda e: services.end_round(request.user, e, expected_round=expected))


@login_required
@require_POST
def end(request: HttpRequest, pk: int) -> HttpResponse:
    return _gm_action(request, pk, lambda e: services.end_encounter(request.user, e))


@login_required
@require_POST
def toggle_visibility(request: HttpRequest, pk: int, participant_id: int) -> HttpResponse:
    def action(encounter: Encounter) -> None:
        participant = encounter.participants.filter(pk=participant_id).first()
        if participant is None:
            raise Http404
        services.set_stats_visible(request.user, participant, visible=not participant.stats_visible)

    return _gm_action(request, pk, action)


@login_required
@require_POST
def defend(request: HttpRequest, pk: int, declaration_id: int) -> HttpResponse:
    encounter = services.get_encounter_for_user(request.user, pk)
    declaration = (
        Declaration.objects.filter(pk=declaration_id, round__encounter=encounter)
        .select_related("round__encounter__campaign", "participant", "target")
        .first()
    )
    if declaration is None:
        raise Http404
    system = services.system_for(encounter)
    form = DeclarationForm(
        request.POST,
        encounter=encounter,
        action_fields=services.defence_fields_for(system, declaration),
        gm=is_gm(request.user, encounter.campaign),
        with_target=False,
        options=_defence_options(system, encounter, declaration),
        prefix=f"d{declaration.pk}",
    )
    if form.is_valid():
        try:
            services.choose_defence(request.user, declaration, data=form.declaration())
        except ValidationError as exc:
            for field, msgs in exc.message_dict.items():
                name = field.replace(".", "__")
                for msg in msgs:
                    form.add_error(name if name in form.fields else None, msg)
        else:
            messages.success(request, _("Defence chosen."))
            return redirect("combat:detail", pk=encounter.pk)
    return render(
        request,
        "combat/encounter.html",
        _page_context(request, encounter, defence_forms={declaration.pk: form}),
        status=400,
    )


@login_required
@require_POST
def revive(request: HttpRequest, pk: int, participant_id: int) -> HttpResponse:
    """A GM brings a dead character back (a mistake, a miracle), with a reason kept in its history."""
    encounter = services.get_encounter_for_user(request.user, pk)
    participant = encounter.participants.filter(pk=participant_id, character__isnull=False).first()
    if participant is None or participant.character is None:
        raise Http404
    if not is_gm(request.user, encounter.campaign):
        raise PermissionDenied
    try:
        revive_character(request.user, participant.character, reason=request.POST.get("reason", ""))
    except ValidationError as exc:
        return _done(request, encounter, exc)
    messages.success(request, _("%(name)s is back in play.") % {"name": participant.name})
    return _done(request, encounter)


@login_required
@require_POST
def set_side(request: HttpRequest, pk: int, participant_id: int) -> HttpResponse:
    def action(encounter: Encounter) -> None:
        participant = encounter.participants.filter(pk=participant_id).first()
        if participant is None:
            raise Http404
        services.set_side(request.user, participant, side=request.POST.get("side", ""))

    return _gm_action(request, pk, action)


@login_required
@require_POST
def remove(request: HttpRequest, pk: int, participant_id: int) -> HttpResponse:
    def action(encounter: Encounter) -> None:
        participant = encounter.participants.filter(pk=participant_id).first()
        if participant is None:
            raise Http404
        services.remove_participant(request.user, participant, reason=request.POST.get("reason", ""))

    return _gm_action(request, pk, action)


@login_required
@require_POST
def notes(request: HttpRequest, pk: int) -> HttpResponse:
    return _gm_action(
        request, pk, lambda e: services.set_gm_notes(request.user, e, notes=request.POST.get("notes", ""))
    )


@login_required
@require_POST
def add_participant(request: HttpRequest, pk: int) -> HttpResponse:
    encounter = services.get_encounter_for_user(request.user, pk)
    if not is_gm(request.user, encounter.campaign):
        raise PermissionDenied
    form = ParticipantForm(request.POST, encounter=encounter)
    if form.is_valid():
        data = form.cleaned_data
        try:
            services.add_participant(
                request.user,
                encounter,
                character=data.get("character"),
                name=data.get("name") or "",
                template=data.get("template"),
                entry=data.get("entry") or "",
                npc=form.npc_values(),
                count=data.get("count") or 1,
                side=data.get("side") or None,
                stats_visible=data.get("stats_visible") if not data.get("character") else None,
            )
        except ValidationError as exc:
            form.add_service_errors(exc)
        else:
            messages.success(request, _("Participant added."))
            return redirect("combat:detail", pk=encounter.pk)
    return render(
        request, "combat/encounter.html", _page_context(request, encounter, participant_form=form), status=400
    )


@login_required
@require_POST
def adjust(request: HttpRequest, pk: int) -> HttpResponse:
    encounter = services.get_encounter_for_user(request.user, pk)
    if not is_gm(request.user, encounter.campaign):
        raise PermissionDenied
    form = AdjustForm(request.POST)
    if form.is_valid():
        pid, path = form.cleaned_data["target"]
        participant = encounter.participants.filter(pk=pid).first()
        if participant is None:
            form.add_error("target", _("Choose a value to adjust."))
        else:
            try:
                services.adjust_value(
                    request.user,
                    participant,
                    path=path,
                    value=services.parse_value(form.cleaned_data["value"]),
                    reason=form.cleaned_data["reason"],
                )
            except ValidationError as exc:
                for field, msgs in exc.message_dict.items():
                    target = {"path": "target"}.get(field, field)
                    for msg in msgs:
                        form.add_error(target if target in form.fields else None, msg)
            else:
                messages.success(request, _("Value adjusted."))
                return redirect("combat:detail", pk=encounter.pk)
    return render(request, "combat/encounter.html", _page_context(request, encounter, adjust_form=form), status=400)


@login_required
@require_POST
def declare(request: HttpRequest, pk: int, participant_id: int) -> HttpResponse:
    encounter = services.get_encounter_for_user(request.user, pk)
    participant = encounter.participants.filter(pk=participant_id).first()
    if participant is None:
        raise Http404
    if not services.can_control(request.user, participant, encounter.campaign):
        raise PermissionDenied
    system = services.system_for(encounter)
    form = DeclarationForm(
        request.POST,
        encounter=encounter,
        action_fields=system.action_fields(),
        gm=is_gm(request.user, encounter.campaign),
        options=system.action_options(
            participant.current_sheet(), participant.state or {}, encounter.campaign.system_settings
        ),
        prefix=f"p{participant.pk}",
    )
    if form.is_valid():
        try:
            services.declare_action(
                request.user, participant, data=form.declaration(), target=form.cleaned_data.get("target")
            )
        except ValidationError as exc:
            for field, msgs in exc.message_dict.items():
                name = field.replace(".", "__")
                for msg in msgs:
                    form.add_error(name if name in form.fields else None, msg)
        else:
            messages.success(request, _("Action declared for %(name)s.") % {"name": participant.name})
            return redirect("combat:detail", pk=encounter.pk)
    return render(
        request,
        "combat/encounter.html",
        _page_context(request, encounter, declaration_forms={participant.pk: form}),
        status=400,
    )
