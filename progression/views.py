"""Progression pages: the GM's award screen with the job's live progress,
the session recap, and each character's balance, history and purchases.

Views stay thin: access helpers, form parsing, one service call, render.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns.access import get_campaign_for_user, is_gm
from campaigns.models import PlaySession
from characters.models import Character, LedgerEntry
from progression import facts as facts_mod
from progression import services
from progression.forms import DecisionForm, PurchaseForm
from progression.labels import purchase_kind_label
from progression.models import CharacterBalance, PurchaseRequest, RecalculationRun, SessionReview


# ---------------------------------------------------------------------------
# GM: award screen, reopen, recalculate, live progress
# ---------------------------------------------------------------------------
def _posted_entries(request: HttpRequest, characters: list[Character], system: Any) -> dict[int, dict[str, Any]]:
    """Parse the award form: ``present-<id>``, ``fact-<id>-<path>``, ``amount-<id>-<code>``..."""
    entries: dict[int, dict[str, Any]] = {}
    post = request.POST
    fields = facts_mod.fact_fields(system)
    for character in characters:
        pk = character.pk
        if f"row-{pk}" not in post:
            continue
        amounts, suggested = {}, {}
        for key, value in post.items():
            if key.startswith(f"amount-{pk}-"):
                amounts[key[len(f"amount-{pk}-") :]] = value
            elif key.startswith(f"suggested-{pk}-"):
                suggested[key[len(f"suggested-{pk}-") :]] = value
        entries[pk] = {
            "present": post.get(f"present-{pk}") == "on",
            "facts": {f.path: post.get(f"fact-{pk}-{f.path}") for f in fields},
            "amounts": amounts,
            "suggested": suggested,
            "extra": post.get(f"extra-{pk}", "0").strip() or "0",
            "extra_note": post.get(f"extra_note-{pk}", ""),
        }
    return entries


def _latest_run(session: PlaySession) -> RecalculationRun | None:
    return RecalculationRun.objects.filter(session=session).order_by("-id").first()


def _award_context(session: PlaySession, rows: list[services.AwardRow], errors: dict[str, Any]) -> dict[str, Any]:
    system = session.campaign.rule_system
    review = SessionReview.objects.filter(session=session).first()
    balances = {b.character_id: b for b in CharacterBalance.objects.filter(character__in=[r.character for r in rows])}
    fields = facts_mod.fact_fields(system)
    for row in rows:
        row.balance = balances.get(row.character.pk)  # type: ignore[attr-defined]
        row.fact_inputs = [  # type: ignore[attr-defined]
            {"field": f, "value": row.facts.get(f.path), "error": row.errors.get(f.path)} for f in fields
        ]
        row.lines = [  # type: ignore[attr-defined]
            {
                "s": s,
                "amount": row.amounts.get(s.code, s.amount),
                "error": row.errors.get(f"amount.{s.code}"),
                "current": row.current.get(s.code),
            }
            for s in row.suggestions
        ]
    editable = session.status == PlaySession.Status.CLOSED and (
        review is None or review.status != SessionReview.Status.CONFIRMED
    )
    return {
        "session": session,
        "campaign": session.campaign,
        "system": system,
        "rows": rows,
        "review": review,
        "editable": editable,
        "errors": errors,
        "run": _latest_run(session),
        "currency": system.currencies[0],
    }


@login_required
def session_awards(request: HttpRequest, session_id: int) -> HttpResponse:
    """The GM's award screen (*gains de fin de séance*)."""
    session = services.get_session_for_user(request.user, session_id, gm=True)
    characters = services.session_characters(session)
    errors: dict[str, Any] = {}
    posted = None
    if request.method == "POST":
        posted = _posted_entries(request, characters, session.campaign.rule_system)
        if request.POST.get("action") == "confirm":
            try:
                services.confirm_session_awards(request.user, session, entries=posted)
            except ValidationError as exc:
                errors = exc.message_dict
            else:
                messages.success(request, _("Awards confirmed: the recalculation is running."))
                return redirect("progression:session_awards", session_id=session.pk)
    rows = services.award_rows(session, posted=posted)
    for key, message_list in errors.items():
        pk, _sep, path = key.partition(".")
        for row in rows:
            if str(row.character.pk) == pk and path:
                row.errors.setdefault(path, message_list[0])
    context = _award_context(session, rows, errors)
    status = 400 if errors else 200
    return render(request, "progression/session_awards.html", context, status=status)


@login_required
@require_POST
def session_reopen(request: HttpRequest, session_id: int) -> HttpResponse:
    session = services.get_session_for_user(request.user, session_id, gm=True)
    try:
        services.reopen_session_awards(request.user, session)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, _("Awards reopened: correct them and confirm again."))
    return redirect("progression:session_awards", session_id=session.pk)


@login_required
@require_POST
def session_recalculate(request: HttpRequest, session_id: int) -> HttpResponse:
    session = services.get_session_for_user(request.user, session_id, gm=True)
    services.launch_recalculation(request.user, session)
    messages.success(request, _("Recalculation launched."))
    return redirect("progression:session_awards", session_id=session.pk)


@login_required
def session_progress(request: HttpRequest, session_id: int) -> HttpResponse:
    """The live progress fragment (SSE-triggered, polled every second while a run is active)."""
    session = services.get_session_for_user(request.user, session_id, gm=True)
    return render(request, "progression/_run.html", {"session": session, "run": _latest_run(session)})


# ---------------------------------------------------------------------------
# Recap
# ---------------------------------------------------------------------------
@login_required
def session_recap(request: HttpRequest, session_id: int) -> HttpResponse:
    """Recap per session: awards (with corrections), spending, balances before/after."""
    session = services.get_session_for_user(request.user, session_id)
    context = services.recap(session, request.user)
    context.update({"session": session, "campaign": session.campaign})
    return render(request, "progression/session_recap.html", context)


# ---------------------------------------------------------------------------
# Campaign index
# ---------------------------------------------------------------------------
@login_required
def campaign_progression(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = get_campaign_for_user(request.user, campaign_id)
    gm = is_gm(request.user, campaign)
    sessions = list(PlaySession.objects.filter(campaign=campaign).select_related("review").order_by("-number")[:50])
    mine = Character.objects.filter(campaign=campaign, owner=request.user, is_npc=False)
    pending = (
        PurchaseRequest.objects.filter(
            character__campaign=campaign, status=PurchaseRequest.Status.PENDING
        ).select_related("character", "requested_by")
        if gm
        else PurchaseRequest.objects.none()
    )
    from characters import ledger

    visible = list((Character.objects.filter(campaign=campaign, is_npc=False) if gm else mine).order_by("name", "pk"))
    snapshots = {b.character_id: b for b in CharacterBalance.objects.filter(character__in=visible)}
    currencies = campaign.rule_system.currencies
    rows = []
    for character in visible:
        live = ledger.balances(character)  # the ledger, as on the character's page (snapshots lag behind purchases)
        snapshot = snapshots.get(character.pk)
        rows.append(
            {
                "character": character,
                "balances": [(currency, live.get(currency, 0)) for currency in currencies],
                "flags": snapshot.flags if snapshot else [],
            }
        )
    return render(
        request,
        "progression/campaign.html",
        {"campaign": campaign, "gm": gm, "sessions": sessions, "rows": rows, "pending": pending},
    )


# ---------------------------------------------------------------------------
# Characters: balance, history, affordable, purchase requests
# ---------------------------------------------------------------------------
def _character_context(request: HttpRequest, character: Character, form: PurchaseForm | None) -> dict[str, Any]:
    system = character.rule_system
    kinds = system.purchase_fields()
    from characters import ledger

    history = list(
        LedgerEntry.objects.filter(character=character).select_related("session", "created_by").order_by("-id")[:200]
    )
    for entry in history:
        entry.text = services.entry_note(entry)  # type: ignore[attr-defined]
    snapshot = CharacterBalance.objects.filter(character=character).first()
    gm = is_gm(request.user, character.campaign)
    lang = get_language() or "fr"
    attribute_labels = {
        f.path.split(".", 1)[1]: f.label.get(lang) for f in system.sheet_fields() if f.path.startswith("attributes.")
    }
    # GMs see the true ladder; the owner what he may know: public positions only (L18, rules.ambre.ranks).
    state = (snapshot.state or {}) if snapshot else {}
    ranks = [
        {**r, "attribute": attribute_labels.get(attr, attr)}
        for attr, r in (state.get("ranks" if gm else "known_ranks") or {}).items()
        if isinstance(r, dict) and (r.get("true_position") if gm else (r.get("public_position") or r.get("secret")))
    ]
    return {
        "character": character,
        "campaign": character.campaign,
        "gm": gm,
        "owner": services.is_owner(request.user, character),
        "balances": ledger.balances(character),
        "currencies": system.currencies,
        "snapshot": snapshot,
        "ranks": ranks,
        "history": history,
        "affordable": services.affordable(character),
        "kinds": [(k, purchase_kind_label(k)) for k in kinds],
        "form": form,
        "requests": PurchaseRequest.objects.filter(character=character).select_related("requested_by")[:50],
        "decision_form": DecisionForm(),
    }


def _purchase_form(
    character: Character, kind: str | None, data: Any = None, *, gm: bool = False
) -> PurchaseForm | None:
    kinds = character.rule_system.purchase_fields()
    if not kind:
        return None
    if kind not in kinds:
        raise Http404
    return PurchaseForm(kind, kinds[kind], data=data, prefix="p", gm=gm, sheet=character.current_sheet())


@login_required
def character_progression(request: HttpRequest, character_id: int) -> HttpResponse:
    """A character's balance, history, what it can afford and its purchase requests."""
    character = services.get_character_for_user(request.user, character_id)
    kind = request.GET.get("kind") or None
    initial = {k[2:]: v for k, v in request.GET.items() if k.startswith("p-")}
    form = _purchase_form(character, kind, gm=is_gm(request.user, character.campaign))
    if form is not None and initial:
        form.initial.update(initial)
    context = _character_context(request, character, form)
    if request.htmx and request.GET.get("fragment") == "form":
        return render(request, "progression/_purchase_form.html", context)
    return render(request, "progression/character.html", context)


@login_required
@require_POST
def purchase_create(request: HttpRequest, character_id: int) -> HttpResponse:
    character = services.get_character_for_user(request.user, character_id)
    form = _purchase_form(
        character, request.POST.get("kind"), data=request.POST, gm=is_gm(request.user, character.campaign)
    )
    if form is None:
        raise Http404
    if form.is_valid():
        try:
            services.request_purchase(request.user, character, request=form.request())
        except ValidationError as exc:
            form.add_rule_errors(exc.message_dict)
        else:
            messages.success(request, _("Purchase requested: the GM will decide."))
            return redirect("progression:character", character_id=character.pk)
    context = _character_context(request, character, form)
    return render(request, "progression/character.html", context, status=400)


@login_required
@require_POST
def purchase_decide(request: HttpRequest, request_id: int) -> HttpResponse:
    purchase = get_object_or_404(PurchaseRequest.objects.select_related("character__campaign"), pk=request_id)
    character = services.get_character_for_user(request.user, purchase.character_id)
    form = DecisionForm(request.POST)
    comment = form.cleaned_data["comment"] if form.is_valid() else ""
    approve = request.POST.get("decision") == "approve"
    try:
        services.decide_purchase(request.user, purchase, approve=approve, comment=comment)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, _("Purchase approved.") if approve else _("Purchase rejected."))
    return redirect("progression:character", character_id=character.pk)
