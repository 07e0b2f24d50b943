"""HTML views of characters: thin wrappers around :mod:`characters.services`."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop, pgettext_lazy
from django.views.decorators.http import require_POST

from campaigns import play
from campaigns.access import get_campaign_for_user, is_gm, role_of
from campaigns.models import Role
from characters import access, services
from characters import sheetform as sf
from characters.forms import (
    AuctionOpenForm,
    CommentForm,
    CompareForm,
    ImportForm,
    NewCharacterForm,
    PortraitForm,
    ProfileForm,
    ReviewForm,
    StatusForm,
)
from characters.ledger import balances
from characters.models import Auction, ChangeRequest, Character, LedgerEntry, SheetVersion
from config import jsonlimits
from rules.base import FieldError, LedgerDraft, Msg, is_digits

RANK_LABELS = {
    "dominant": gettext_lazy("dominant"),
    "ranked": gettext_lazy("ranked"),
    "amberite": gettext_lazy("Amberite"),
    "chaosian": gettext_lazy("chaosian"),
    "human": gettext_lazy("human"),
}
LOT_STATUS = {
    "open": pgettext_lazy("auction lot", "open"),
    "pending": pgettext_lazy("auction lot", "to come"),
    "closed": pgettext_lazy("auction lot", "closed"),
}
CLEFS_METHODS = {
    "aspect": ["ROLL_STANDARD", "ROLL_LOW", "FIXED_10"],
    "means": ["ROLL", "ZERO"],
}


def _error_messages(exc: ValidationError) -> list[str]:
    if hasattr(exc, "message_dict"):
        return [m for messages_ in exc.message_dict.values() for m in messages_]
    return list(exc.messages)


def _version(request: HttpRequest) -> int | None:
    raw = request.POST.get("version", "")
    return int(raw) if is_digits(raw) else None


def _locked_paths(user: Any, character: Character) -> list[str]:
    return access.locked_paths(user, character)


# ---------------------------------------------------------------------------
# Roster, creation, import
# ---------------------------------------------------------------------------
def campaign_characters(request: HttpRequest, campaign_id: str) -> HttpResponse:
    campaign = get_campaign_for_user(request.user, campaign_id)
    gm = is_gm(request.user, campaign)
    qs = Character.objects.filter(campaign=campaign).select_related("owner")
    if not gm:
        qs = qs.filter(is_npc=False)
    role = role_of(request.user, campaign)
    auction = Auction.objects.filter(campaign=campaign).first() if campaign.system == "ambre" else None
    return render(
        request,
        "characters/roster.html",
        {
            "campaign": campaign,
            "characters": list(qs),
            "is_gm": gm,
            "can_create": role in (Role.GM, Role.COGM, Role.PLAYER),
            "auction": auction,
            "can_see_auction": role is not None,  # the auction page is for members only
            "public_ladder": _public_ladder(auction),
        },
    )


def _public_ladder(auction: Auction | None) -> list[dict[str, Any]]:
    """The public ladder of each closed attribute (names only, best first)."""
    if auction is None:
        return []
    from rules.ambre import auction as rules_auction
    from rules.ambre import tables as T

    names = {str(c.pk): c.name for c in Character.objects.filter(pk__in=auction.character_ids())}
    out = []
    for attr, data in rules_auction.ladders(auction.state).items():
        if data.get("closed"):
            out.append(
                {"label": sf.msg(T.ATTRIBUTE_LABELS[attr]), "names": [names.get(p, "?") for p in data["public"]]}
            )
    return out


@login_required
def character_new(request: HttpRequest, campaign_id: str) -> HttpResponse:
    campaign = get_campaign_for_user(request.user, campaign_id)
    gm = is_gm(request.user, campaign)
    form = NewCharacterForm(request.POST or None, can_make_npc=gm)
    if request.method == "POST" and form.is_valid():
        try:
            character = services.create_character(
                request.user,
                campaign,
                name=form.cleaned_data["name"],
                is_npc=form.cleaned_data.get("is_npc", False),
                public_description=form.cleaned_data.get("public_description", ""),
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        except PermissionDenied as exc:
            form.add_error(None, str(exc))
        else:
            return redirect("characters:wizard", pk=character.pk)
    return render(request, "characters/new.html", {"campaign": campaign, "form": form, "import_form": ImportForm()})


@login_required
@require_POST
def character_import(request: HttpRequest, campaign_id: str) -> HttpResponse:
    campaign = get_campaign_for_user(request.user, campaign_id)
    form = ImportForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            if upload.size > 2 * 1024 * 1024:
                raise ValidationError({"file": [_("This file is too large.")]})
            data = jsonlimits.loads(upload.read().decode("utf-8"))
        except jsonlimits.JSONTooDeep as exc:
            form.add_error("file", exc.message())
        except (ValueError, UnicodeDecodeError):
            form.add_error("file", _("This file is not valid JSON."))
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            try:
                character = services.import_character(request.user, campaign, data=data)
            except services.SheetInvalid as exc:
                form.add_error(None, _error_messages(exc))
            except ValidationError as exc:
                form.add_error(None, exc)
            except PermissionDenied as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(request, _("Character imported as a draft."))
                return redirect("characters:detail", pk=character.pk)
    new_form = NewCharacterForm(can_make_npc=is_gm(request.user, campaign))
    return render(
        request, "characters/new.html", {"campaign": campaign, "form": new_form, "import_form": form}, status=400
    )


# ---------------------------------------------------------------------------
# The sheet page
# ---------------------------------------------------------------------------
def _sheet_context(request: HttpRequest, character: Character) -> dict[str, Any]:
    system = character.rule_system
    sheet = character.current_sheet()
    result = services.evaluate_character(character, sheet)
    budget, frozen = services.shown_budget(character, result)
    view = sf.budget_view(budget) if budget else None
    if view and frozen:
        # Creation is over: the headline figure is what the ledger holds now, in the budget's currency.
        view["frozen"] = True
        view["balance"] = balances(character).get(view["currency"], 0)
    return {
        "system": system,
        "system_name": sf.msg(system.name),
        "groups": sf.sheet_groups(system.sheet_fields(), sheet),
        "derived_groups": sf.derived_groups(system, result.derived or {}),
        "budget": view,
        "sheet_errors": sf.leftover_errors(sf.error_map(result.all_errors()), system.sheet_fields()),
        "valid": result.valid,
        "sheet": sheet,
        "derived_raw": result.derived or {},
    }


def character_detail(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk)
    full = access.can_see_full_sheet(request.user, character)
    context: dict[str, Any] = {
        "character": character,
        "full": full,
        "is_gm": is_gm(request.user, character.campaign),
        "is_owner": access.is_owner(request.user, character),
        "public_ranks": _public_ranks(character),
        "system_name": sf.msg(character.rule_system.name),  # also for visitors (not the bare slug)
    }
    if full:
        context.update(_sheet_context(request, character))
        show_creation = context["is_gm"] or character.status in (Character.Status.DRAFT, Character.Status.SUBMITTED)
        money = balances(character)
        labels = dict(LedgerEntry.Currency.choices)
        context.update(
            {
                "page": sf.sheet_page(
                    character.rule_system, context["sheet"], context["derived_raw"], show_creation=show_creation
                ),
                "show_budget": show_creation and context.get("budget"),
                "balance_rows": [{"label": labels.get(c, c), "amount": a} for c, a in money.items() if a or c == "xp"],
                "balances": money,
                "ledger": list(LedgerEntry.objects.filter(character=character).order_by("-id")[:50]),
                "changes": list(character.change_requests.select_related("author")[:20]),
                "can_edit": access.can_edit_directly(request.user, character),
                "can_request": access.can_request_change(request.user, character),
                "review_form": ReviewForm(),
                "status_form": StatusForm(initial={"status": character.status}),
                "portrait_form": PortraitForm(),
                "first_step": (character.rule_system.creation_steps() or [None])[0],
                "roll_panel": play.sheet_panel(request.user, character, request.LANGUAGE_CODE or "fr"),
            }
        )
    return render(request, "characters/detail.html", context)


def _public_ranks(character: Character) -> list[dict[str, Any]]:
    """Ambre: the character's places in the public ladders (public part)."""
    if character.system != "ambre":
        return []
    auction = next(
        (a for a in Auction.objects.filter(campaign=character.campaign) if character.pk in a.character_ids()), None
    )
    if auction is None:
        return []
    from rules.ambre import auction as rules_auction
    from rules.ambre import tables as T

    positions = rules_auction.public_positions(auction.state, str(character.pk))
    return [{"label": sf.msg(T.ATTRIBUTE_LABELS[attr]), "position": n} for attr, n in positions.items()]


def character_print(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk, write=True)
    context = {"character": character, "full": True, "balances": balances(character)}
    context.update(_sheet_context(request, character))
    show_creation = character.status in (Character.Status.DRAFT, Character.Status.SUBMITTED)
    context["page"] = sf.sheet_page(
        character.rule_system, context["sheet"], context["derived_raw"], show_creation=show_creation
    )
    return render(request, "characters/print.html", context)


def character_export(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk, write=True)
    data = services.export_character(request.user, character)
    response = JsonResponse(data, json_dumps_params={"ensure_ascii": False, "indent": 2})
    filename = slugify(character.name) or f"character-{character.pk}"
    response["Content-Disposition"] = f'attachment; filename="{filename}.json"'
    return response


# ---------------------------------------------------------------------------
# The creation wizard (and the full edit form)
# ---------------------------------------------------------------------------
def _steps(character: Character) -> list[Any]:
    return list(character.rule_system.creation_steps())


def _form_context(
    request: HttpRequest,
    character: Character,
    sheet: dict[str, Any],
    *,
    paths: list[str] | None,
    extra_errors: list[FieldError] = (),  # type: ignore[assignment]
    show_errors: bool = True,
) -> dict[str, Any]:
    system = character.rule_system
    fields = system.sheet_fields()
    result = services.evaluate_character(character, sheet)
    all_errors: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for e in list(extra_errors) + (result.all_errors() if show_errors else []):
        if (e.path, e.code) not in seen:
            seen.add((e.path, e.code))
            all_errors.append(e)
    errors = sf.error_map(all_errors)
    gm = is_gm(request.user, character.campaign)
    locked = _locked_paths(request.user, character)
    nodes = sf.build_nodes(fields, sheet, errors, paths=paths, locked=locked, allow_dict=gm)
    leftovers = sf.leftover_errors(errors, fields)
    for item in leftovers:
        item["step"] = sf.step_of_path(system, item["path"]) if item["path"] else None
    return {
        "nodes": nodes,
        "other_errors": leftovers,
        "budget": sf.budget_view(result.budget) if result.budget else None,
        "derived_groups": sf.derived_groups(system, result.derived or {}),
        "valid": result.valid,
        "error_count": len(all_errors),
    }


@login_required
def wizard(request: HttpRequest, pk: int, step: str | None = None) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk, write=True)
    steps = _steps(character)
    if not steps:
        raise Http404
    keys = [s.key for s in steps]
    if step is None:
        return redirect("characters:wizard_step", pk=pk, step=keys[0])
    if step not in keys:
        raise Http404
    current = steps[keys.index(step)]
    if not access.can_edit_directly(request.user, character):
        messages.info(request, _("This sheet is no longer a draft: propose changes from the sheet page."))
        return redirect("characters:detail", pk=pk)
    system = character.rule_system
    sheet = character.current_sheet()
    extra: list[FieldError] = []
    status = 200
    if request.method == "POST":
        gm = is_gm(request.user, character.campaign)
        parsed, parse_errors = sf.parse_sheet(
            system.sheet_fields(),
            request.POST,
            sheet,
            paths=current.paths,
            locked=_locked_paths(request.user, character),
            allow_dict=gm,
        )
        structural = "_add" in request.POST or any(k.startswith("del:") for k in request.POST)
        if structural:
            sheet, extra = parsed, parse_errors
        else:
            parsed = services.on_step_saved(character, sheet, parsed)
            try:
                character = services.save_sheet(
                    request.user,
                    character,
                    sheet=parsed,
                    expected_version=_version(request),
                    reason=_("wizard: %(step)s") % {"step": sf.msg(current.label)},
                    parse_errors=parse_errors,
                )
            except services.VersionConflict as exc:
                messages.error(request, _error_messages(exc)[0])
                return redirect("characters:wizard_step", pk=pk, step=step)
            except services.SheetInvalid as exc:
                sheet, extra, status = parsed, exc.field_errors, 400
            else:
                go = request.POST.get("go", "")
                index = keys.index(step)
                if go == "next" and index + 1 < len(keys):
                    return redirect("characters:wizard_step", pk=pk, step=keys[index + 1])
                if go == "prev" and index > 0:
                    return redirect("characters:wizard_step", pk=pk, step=keys[index - 1])
                if go == "finish":
                    return redirect("characters:detail", pk=pk)
                messages.success(request, _("Saved."))
                return redirect("characters:wizard_step", pk=pk, step=step)
    context = {
        "character": character,
        "steps": [
            {
                "key": s.key,
                "label": sf.msg(s.label),
                "current": s.key == step,
                "numbered": is_digits(sf.msg(s.label)[:1]),
            }
            for s in steps
        ],
        "step": current,
        "step_label": sf.msg(current.label),
        "step_help": sf.msg(current.help) if current.help else "",
        "step_index": keys.index(step),
        "is_first": keys.index(step) == 0,
        "is_last": keys.index(step) == len(keys) - 1,
        "form_action": reverse("characters:wizard_step", args=[pk, step]),
        "validate_url": reverse("characters:validate", args=[pk]) + f"?step={step}",
        "version": character.version,
        "is_gm": is_gm(request.user, character.campaign),
    }
    context.update(_form_context(request, character, sheet, paths=list(current.paths), extra_errors=extra))
    context.update(_system_extras(request, character, step, sheet))
    template = "characters/_step_form.html" if request.htmx and request.method == "POST" else "characters/wizard.html"
    return render(request, template, context, status=status)


def _system_extras(request: HttpRequest, character: Character, step: str, sheet: dict[str, Any]) -> dict[str, Any]:
    """System-specific panels of a wizard step (roll buttons, templates)."""
    extras: dict[str, Any] = {}
    if character.system == "clefs-de-l-aube" and step == "aspects":
        creation = sheet.get("creation") or {}
        # The methods' names come from the sheet's choice fields (never show the bare codes).
        choices = {f.path: dict(f.choices) for f in character.rule_system.sheet_fields() if f.kind == "choice"}
        aspect_names = choices.get("creation.aspect_method", {})
        means_names = choices.get("creation.means_method", {})
        record = creation.get("roll") or None
        extras["clefs_roll"] = {
            "record": record,
            "record_methods": (
                f"{sf.msg(aspect_names.get(record.get('aspect_method'))) or record.get('aspect_method')}, "
                f"{sf.msg(means_names.get(record.get('means_method'))) or record.get('means_method')}"
                if isinstance(record, dict)
                else ""
            ),
            "aspect_methods": [(m, sf.msg(aspect_names.get(m)) or m) for m in CLEFS_METHODS["aspect"]],
            "means_methods": [(m, sf.msg(means_names.get(m)) or m) for m in CLEFS_METHODS["means"]],
            "aspect_method": creation.get("aspect_method", "FIXED_10"),
            "means_method": creation.get("means_method", "ZERO"),
            "can_roll": character.creation_roll_id is None or is_gm(request.user, character.campaign),
        }
    if character.system == "sms" and step in ("race", "archetype"):
        from rules.sms import tables as sms_tables

        if step == "archetype":
            archetypes = getattr(sms_tables, "ARCHETYPES", {})
            extras["sms_archetypes"] = [(key, _label_of(value, key)) for key, value in archetypes.items()]
            from rules.sms.creation import ARCHETYPE_DEFAULT_NOTE

            extras["sms_archetype_note"] = sf.msg(ARCHETYPE_DEFAULT_NOTE)
    if character.system == "ambre" and step == "attributes":
        extras["ambre_auction"] = next(
            (a for a in Auction.objects.filter(campaign=character.campaign) if character.pk in a.character_ids()), None
        )
    return extras


def _label_of(value: Any, default: str) -> str:
    if isinstance(value, dict):
        for key in ("label", "name"):
            if key in value:
                return sf.msg(value[key])
    return sf.msg(value) if not isinstance(value, str | int) else default


@login_required
@require_POST
def validate(request: HttpRequest, pk: int) -> HttpResponse:
    """htmx: re-validate the posted form; returns the status panel plus
    out-of-band error lists for every input of the form."""
    character = access.get_character_for_user(request.user, pk, write=True)
    system = character.rule_system
    step_key = request.GET.get("step")
    paths = None
    if step_key:
        step = next((s for s in system.creation_steps() if s.key == step_key), None)
        if step is None:
            raise Http404
        paths = list(step.paths)
    parsed, parse_errors = sf.parse_sheet(
        system.sheet_fields(),
        request.POST,
        character.current_sheet(),
        paths=paths,
        locked=_locked_paths(request.user, character),
        allow_dict=is_gm(request.user, character.campaign),
    )
    if paths is not None:  # a wizard step: preview what saving it would carry through
        parsed = services.on_step_saved(character, character.current_sheet(), parsed)
    context = {"character": character}
    context.update(_form_context(request, character, parsed, paths=paths, extra_errors=parse_errors))
    return render(request, "characters/_validate.html", context)


@login_required
def sheet_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """Every field at once: the owner's draft, a GM's direct edit, or a change request."""
    character = access.get_character_for_user(request.user, pk, write=True)
    direct = access.can_edit_directly(request.user, character)
    requesting = not direct and access.can_request_change(request.user, character)
    if not (direct or requesting):
        raise PermissionDenied
    system = character.rule_system
    sheet = character.current_sheet()
    extra: list[FieldError] = []
    status = 200
    form_errors: list[str] = []
    if request.method == "POST":
        parsed, parse_errors = sf.parse_sheet(
            system.sheet_fields(),
            request.POST,
            sheet,
            locked=_locked_paths(request.user, character),
            allow_dict=is_gm(request.user, character.campaign),
        )
        structural = "_add" in request.POST or any(k.startswith("del:") for k in request.POST)
        if structural:
            sheet, extra = parsed, parse_errors
        else:
            try:
                if direct:
                    character = services.save_sheet(
                        request.user,
                        character,
                        sheet=parsed,
                        expected_version=_version(request),
                        reason=request.POST.get("reason", "")[:300],
                        parse_errors=parse_errors,
                    )
                    messages.success(request, _("Sheet saved."))
                    return redirect("characters:detail", pk=pk)
                change = services.request_change(
                    request.user,
                    character,
                    sheet=parsed,
                    expected_version=_version(request),
                    reason=request.POST.get("reason", ""),
                    parse_errors=parse_errors,
                )
                messages.success(request, _("Change request sent to the GM."))
                return redirect("characters:change", pk=change.pk)
            except services.SheetInvalid as exc:
                sheet, extra, status = parsed, exc.field_errors, 400
            except ValidationError as exc:
                sheet, status = parsed, 409 if isinstance(exc, services.VersionConflict) else 400
                form_errors = _error_messages(exc)
    context = {
        "character": character,
        "direct": direct,
        "requesting": requesting,
        "form_action": reverse("characters:edit", args=[pk]),
        "validate_url": reverse("characters:validate", args=[pk]),
        "version": int(request.POST.get("version") or character.version) if status != 200 else character.version,
        "form_errors": form_errors,
        "reason": request.POST.get("reason", ""),
    }
    context.update(_form_context(request, character, sheet, paths=None, extra_errors=extra))
    template = "characters/_edit_form.html" if request.htmx and request.method == "POST" else "characters/edit.html"
    return render(request, template, context, status=status)


@login_required
def profile_edit(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk, write=True)
    initial = {
        "name": character.name,
        "public_description": character.public_description,
        "private_background": character.private_background,
        "version": character.version,
    }
    form = ProfileForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            services.update_profile(
                request.user,
                character,
                name=form.cleaned_data["name"],
                public_description=form.cleaned_data["public_description"],
                private_background=form.cleaned_data["private_background"],
                expected_version=form.cleaned_data["version"],
            )
        except ValidationError as exc:
            form.add_error(None, exc) if isinstance(exc, services.VersionConflict) else _add_errors(form, exc)
        except PermissionDenied as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, _("Saved."))
            return redirect("characters:detail", pk=pk)
    return render(request, "characters/profile.html", {"character": character, "form": form})


def _add_errors(form: Any, exc: ValidationError) -> None:
    for key, values in exc.message_dict.items():
        form.add_error(key if key in form.fields else None, values)


# ---------------------------------------------------------------------------
# Status transitions
# ---------------------------------------------------------------------------
def _action(request: HttpRequest, pk: int, fn: Any, success: str, **kwargs: Any) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk, write=True)
    try:
        fn(request.user, character, **kwargs)
    except services.SheetInvalid as exc:
        messages.error(request, _("The sheet is not valid yet:") + " " + " ".join(_error_messages(exc)[:8]))
    except ValidationError as exc:
        messages.error(request, " ".join(_error_messages(exc)))
    except PermissionDenied as exc:
        messages.error(request, str(exc) or _("You may not do this."))
    else:
        messages.success(request, success)
    return redirect("characters:detail", pk=pk)


@login_required
@require_POST
def submit(request: HttpRequest, pk: int) -> HttpResponse:
    return _action(
        request, pk, services.submit_character, _("Submitted to the GM."), expected_version=_version(request)
    )


@login_required
@require_POST
def approve(request: HttpRequest, pk: int) -> HttpResponse:
    return _action(
        request, pk, services.approve_character, _("Character approved."), comment=request.POST.get("comment", "")
    )


@login_required
@require_POST
def return_to_player(request: HttpRequest, pk: int) -> HttpResponse:
    return _action(
        request, pk, services.return_character, _("Returned to the player."), comment=request.POST.get("comment", "")
    )


@login_required
@require_POST
def set_status(request: HttpRequest, pk: int) -> HttpResponse:
    return _action(request, pk, services.set_status, _("Status changed."), status=request.POST.get("status", ""))


@login_required
@require_POST
def portrait(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk, write=True)
    form = PortraitForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, _("Choose an image file."))
        return redirect("characters:detail", pk=pk)
    return _action(
        request, character.pk, services.set_portrait, _("Portrait updated."), upload=form.cleaned_data["portrait"]
    )


def portrait_file(request: HttpRequest, name: str) -> HttpResponse:
    """A portrait, for whoever may see the character's public part (else 404).

    The file name is a random token; behind a proxy, ``TABLEE_MEDIA_ACCEL_REDIRECT``
    (nginx ``X-Accel-Redirect`` to an internal location) or ``TABLEE_MEDIA_SENDFILE``
    (``X-Sendfile``) hands the sending to it, otherwise Django streams the file.
    """
    from django.conf import settings
    from django.http import FileResponse

    if request.method not in ("GET", "HEAD") or ".." in name.split("/"):
        raise Http404
    character = Character.objects.select_related("campaign").filter(portrait=name).first()
    if character is None or not access.can_see_public(request.user, character):
        raise Http404
    storage = character.portrait.storage
    if not storage.exists(name):
        raise Http404
    accel = getattr(settings, "TABLEE_MEDIA_ACCEL_REDIRECT", "")
    if accel:
        response = HttpResponse(content_type="image/jpeg")
        response["X-Accel-Redirect"] = accel.rstrip("/") + "/" + name
    elif getattr(settings, "TABLEE_MEDIA_SENDFILE", False):
        response = HttpResponse(content_type="image/jpeg")
        response["X-Sendfile"] = storage.path(name)
    else:
        response = FileResponse(storage.open(name, "rb"), content_type="image/jpeg")
    # Never in a shared cache: who may see it depends on the visitor.
    response["Cache-Control"] = "private, max-age=3600"
    response["Vary"] = "Cookie"
    return response


@login_required
@require_POST
def clefs_roll(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk, write=True)
    try:
        services.clefs_creation_roll(
            request.user,
            character,
            aspect_method=request.POST.get("aspect_method", ""),
            means_method=request.POST.get("means_method", ""),
            expected_version=_version(request),
        )
    except ValidationError as exc:
        messages.error(request, " ".join(_error_messages(exc)))
    except PermissionDenied as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("The dice are rolled."))
    return redirect("characters:wizard_step", pk=pk, step="aspects")


@login_required
@require_POST
def sms_template(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk, write=True)
    kind = request.POST.get("kind", "")
    try:
        services.apply_template(
            request.user, character, kind=kind, key=request.POST.get("key", ""), expected_version=_version(request)
        )
    except ValidationError as exc:
        messages.error(request, " ".join(_error_messages(exc)))
    except PermissionDenied as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("Template applied."))
    return redirect("characters:wizard_step", pk=pk, step="archetype" if kind == "archetype" else "race")


# ---------------------------------------------------------------------------
# Change requests
# ---------------------------------------------------------------------------
def _change_context(change: ChangeRequest) -> dict[str, Any]:
    character = change.character
    system = character.rule_system
    before_sheet = character.current_sheet()
    if change.status != ChangeRequest.Status.PENDING:
        base = SheetVersion.objects.filter(character=character, version=change.base_version).first()
        before_sheet = base.sheet if base else before_sheet
    after_sheet = change.sheet
    purchase = None
    purchase_errors: list[str] = []
    if change.purchase is not None:
        # A purchase is priced by the rules' purchase(), on the current sheet and balances while pending.
        from progression.labels import purchase_kind_label

        kind = str(change.purchase.get("kind", ""))
        purchase = {
            "kind": kind,
            "label": purchase_kind_label(kind),
            "fields": [(k, v) for k, v in change.purchase.items() if k != "kind"],
        }
        if change.status == ChangeRequest.Status.PENDING:
            result = services.purchase_preview(character, change)
            purchase_errors = [sf.msg(e.message) for e in result.errors]
            drafts = list(result.entries)
            if not result.errors:
                after_sheet = result.sheet
        else:
            drafts = [
                LedgerDraft(e.currency, e.amount, e.kind, Msg(e.note, e.note), {})
                for e in LedgerEntry.objects.filter(character=character, key__startswith=f"change:{change.pk}:")
            ]
    before = services.evaluate_character(character, before_sheet)
    after = services.evaluate_character(character, after_sheet)
    if purchase is None:
        drafts = services.change_ledger_drafts(character, before_sheet, change.sheet)
    diff = sf.sheet_diff(system.sheet_fields(), before_sheet, after_sheet)
    if change.name != character.name and change.status == ChangeRequest.Status.PENDING:
        diff.insert(0, {"path": "name", "label": _("Name"), "before": character.name, "after": change.name})
    return {
        "change": change,
        "character": character,
        "diff": diff,
        "derived_diff": sf.derived_diff(system, before.derived or {}, after.derived or {}),
        "budget_before": sf.budget_view(before.budget) if before.budget else None,
        "budget_after": sf.budget_view(after.budget) if after.budget else None,
        "ledger_drafts": [
            {"currency": d.currency, "amount": d.amount, "kind": d.kind, "note": sf.msg(d.note)} for d in drafts
        ],
        "after_errors": purchase_errors if purchase is not None else [sf.msg(e.message) for e in after.errors],
        "purchase": purchase,
        "stale": purchase is None
        and change.status == ChangeRequest.Status.PENDING
        and character.version != change.base_version,
        "balances": balances(character),
    }


@login_required
def change_detail(request: HttpRequest, pk: int) -> HttpResponse:
    change = access.get_change_request_for_user(request.user, pk)
    context = _change_context(change)
    context.update(
        {
            "comments": list(change.comments.select_related("author")),
            "comment_form": CommentForm(),
            "is_gm": is_gm(request.user, change.character.campaign),
            "is_author": change.author_id == request.user.pk,
        }
    )
    return render(request, "characters/change.html", context)


@login_required
@require_POST
def change_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    change = access.get_change_request_for_user(request.user, pk)
    comment = request.POST.get("comment", "") or request.POST.get("body", "")
    try:
        if action == "approve":
            services.approve_change(request.user, change, comment=comment)
            messages.success(request, _("Change applied."))
        elif action == "reject":
            services.reject_change(request.user, change, comment=comment)
            messages.success(request, _("Change rejected."))
        elif action == "withdraw":
            services.withdraw_change(request.user, change)
            messages.success(request, _("Change request withdrawn."))
        elif action == "comment":
            services.comment_change(request.user, change, body=comment)
        else:
            raise Http404
    except ValidationError as exc:
        messages.error(request, " ".join(_error_messages(exc)))
    except PermissionDenied as exc:
        messages.error(request, str(exc) or _("You may not do this."))
    return redirect("characters:change", pk=pk)


# ---------------------------------------------------------------------------
# History
# ---------------------------------------------------------------------------
#: Reasons the services write in their writer's language ("brouillon enregistré"),
#: shown again in the reader's (the ones with a placeholder keep the writer's).
_VERSION_REASONS = (
    gettext_noop("created"),
    gettext_noop("GM edit"),
    gettext_noop("draft saved"),
    gettext_noop("profile edited"),
    gettext_noop("submitted for approval"),
    gettext_noop("approved"),
    gettext_noop("imported"),
    gettext_noop("auction results"),
)


def _reason_in_reader_language(reason: str) -> str:
    from django.utils import translation

    for msgid in _VERSION_REASONS:
        forms = {msgid}
        for code, _name in settings.LANGUAGES:
            with translation.override(code):
                forms.add(_(msgid))
        if reason in forms:
            return _(msgid)
    return reason


def history(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk, write=True)
    versions = list(character.versions.select_related("author").order_by("-version"))
    statuses = dict(Character.Status.choices)
    for v in versions:
        v.status_display = statuses.get(v.status, v.status)
        v.reason_display = _reason_in_reader_language(v.reason)
    data = request.GET.copy()
    if data.get("a") and not data.get("b"):  # "that version → now" (a roll's link to the sheet it read)
        data["b"] = str(character.version)
    form = CompareForm(data or None)
    comparison = None
    if request.GET and form.is_valid():
        by_number = {v.version: v for v in versions}
        a, b = by_number.get(form.cleaned_data["a"]), by_number.get(form.cleaned_data["b"])
        if a is None or b is None:
            form.add_error(None, _("Unknown version."))
        else:
            system = character.rule_system
            sheet_a = system.migrate_sheet(dict(a.sheet), a.schema_version)
            sheet_b = system.migrate_sheet(dict(b.sheet), b.schema_version)
            diff = sf.sheet_diff(system.sheet_fields(), sheet_a, sheet_b)
            if a.name != b.name:
                diff.insert(0, {"path": "name", "label": _("Name"), "before": a.name, "after": b.name})
            ev_a = services.evaluate_character(character, sheet_a)
            ev_b = services.evaluate_character(character, sheet_b)
            comparison = {
                "a": a,
                "b": b,
                "diff": diff,
                "derived_diff": sf.derived_diff(system, ev_a.derived or {}, ev_b.derived or {}),
            }
    return render(
        request,
        "characters/history.html",
        {"character": character, "versions": versions, "form": form, "comparison": comparison},
    )


# ---------------------------------------------------------------------------
# The Ambre auction
# ---------------------------------------------------------------------------
@login_required
def auction_open(request: HttpRequest, campaign_id: str) -> HttpResponse:
    campaign = get_campaign_for_user(request.user, campaign_id)
    if not is_gm(request.user, campaign):
        raise Http404
    form = AuctionOpenForm(request.POST or None, campaign=campaign)
    if request.method == "POST" and form.is_valid():
        try:
            auction = services.open_auction(
                request.user,
                campaign,
                characters=list(form.cleaned_data["characters"]),
                mode=form.cleaned_data["mode"],
                timeout_seconds=form.cleaned_data.get("timeout_seconds") or None,
            )
        except ValidationError as exc:
            form.add_error(None, _error_messages(exc))
        else:
            return redirect("characters:auction", pk=auction.pk)
    return render(request, "characters/auction_open.html", {"campaign": campaign, "form": form})


def _auction_context(request: HttpRequest, auction: Auction) -> dict[str, Any]:
    from rules.ambre import auction as rules_auction
    from rules.ambre import tables as T

    auction = services.check_auction_timeout(auction)
    gm = is_gm(request.user, auction.campaign)
    characters = {str(c.pk): c for c in Character.objects.filter(pk__in=auction.character_ids())}
    mine = [c for pid, c in characters.items() if access.is_owner(request.user, c)]
    chosen = request.GET.get("as") or request.POST.get("character")
    me = next((c for c in mine if str(c.pk) == chosen), mine[0] if mine else None)
    state = auction.state
    results = rules_auction.results(state)
    view = rules_auction.view(state, viewer=str(me.pk) if me else None)
    labels = {a: sf.msg(T.ATTRIBUTE_LABELS[a]) for a in state["attributes"]}
    names = {pid: c.name for pid, c in characters.items()}
    lots = []
    for attr in state["attributes"]:
        lot = view["lots"][attr]
        high = lot.get("high")
        ladder_data = results["ladders"][attr]
        entry = {
            "attr": attr,
            "label": labels[attr],
            "status": lot["status"],
            "status_label": LOT_STATUS.get(lot["status"], lot["status"]),
            "high_name": names.get(high[0]) if high else None,
            "high_amount": high[1] if high else None,
            "own_bid": lot.get("own_bid"),
            "passed_names": [names.get(p, "?") for p in lot.get("passes", [])],
            "downgrades": [(names.get(p, "?"), r) for p, r in lot.get("downgrades", {}).items()],
            "public_ladder": [names.get(p, "?") for p in ladder_data.get("public", [])]
            if lot["status"] == "closed" and (state["mode"] == "open" or gm)
            else [],
            "my_downgrade": lot.get("downgrades", {}).get(str(me.pk)) if me else None,
        }
        if gm:
            raw = state["lots"][attr]
            entry["bids"] = [(names.get(p, "?"), a) for p, a in raw["bids"].items()]
            entry["true_ladder"] = [[names.get(p, "?") for p in group] for group in ladder_data.get("true", [])]
            entry["secret"] = [names.get(p, "?") for p, r in ladder_data.get("ranks", {}).items() if r.get("secret")]
        lots.append(entry)
    my_ranks = []
    if me and view.get("me"):
        for attr in state["attributes"]:
            if state["lots"][attr]["status"] != "closed":
                continue
            rank = view["me"]["ranks"][attr]
            my_ranks.append({**rank, "attr_label": labels[attr], "rank_label": RANK_LABELS.get(rank.get("label"), "")})
    players = []
    if gm:
        for pid, info in results["players"].items():
            players.append(
                {
                    "name": names.get(pid, "?"),
                    "remaining": info["remaining"],
                    "spent": info["karma_spent"],
                    "refunds": info["refunds"],
                    "points": [info["points"][a] for a in state["attributes"]],
                }
            )
    return {
        "open_lots": [lot for lot in lots if lot["status"] == "open"],
        "closed_lots": [lot for lot in lots if lot["status"] == "closed"],
        "gm_characters": sorted(names.items(), key=lambda item: item[1]) if gm else [],
        "auction": auction,
        "campaign": auction.campaign,
        "is_gm": gm,
        "me": me,
        "mine": mine,
        "me_info": view.get("me"),
        "lots": lots,
        "current": view.get("current"),
        "current_label": labels.get(view.get("current") or "", ""),
        "my_ranks": my_ranks,
        "players": players,
        "labels": [labels[a] for a in state["attributes"]],
        "mode": state["mode"],
        "log_count": len(state.get("log", [])),
    }


def auction_detail(request: HttpRequest, pk: int) -> HttpResponse:
    auction = access.get_auction_for_user(request.user, pk)
    return render(request, "characters/auction.html", _auction_context(request, auction))


def auction_panel(request: HttpRequest, pk: int) -> HttpResponse:
    auction = access.get_auction_for_user(request.user, pk)
    return render(request, "characters/_auction_panel.html", _auction_context(request, auction))


def _int_or_none(raw: str | None) -> int | str | None:
    raw = (raw or "").strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        return raw


@login_required
@require_POST
def auction_act(request: HttpRequest, pk: int) -> HttpResponse:
    auction = access.get_auction_for_user(request.user, pk)
    raw_id = request.POST.get("character", "")
    character = Character.objects.filter(pk=int(raw_id)).first() if is_digits(raw_id) else None
    error = None
    if character is None:
        error = _("Choose your character.")
    else:
        event = {"type": request.POST.get("type", "")}
        for key in ("attribute", "rank"):
            if request.POST.get(key):
                event[key] = request.POST[key]
        if "amount" in request.POST:
            event["amount"] = _int_or_none(request.POST.get("amount"))
        try:
            services.auction_act(request.user, auction, character=character, event=event)
        except ValidationError as exc:
            error = " ".join(_error_messages(exc))
        except PermissionDenied as exc:
            error = str(exc)
    return _auction_reply(request, auction, error)


def _auction_reply(request: HttpRequest, auction: Auction, error: str | None) -> HttpResponse:
    if request.htmx:
        context = _auction_context(request, Auction.objects.get(pk=auction.pk))
        context["error"] = error
        return render(request, "characters/_auction_panel.html", context, status=200)
    if error:
        messages.error(request, error)
    return redirect("characters:auction", pk=auction.pk)


@login_required
@require_POST
def auction_control(request: HttpRequest, pk: int) -> HttpResponse:
    auction = access.get_auction_for_user(request.user, pk)
    action = request.POST.get("action", "")
    data: dict[str, Any] = {}
    if action == "timeout":
        data["seconds"] = _int_or_none(request.POST.get("seconds")) or 0
    if request.POST.get("attribute"):
        data["attribute"] = request.POST["attribute"]
    if action == "comparison":
        data["players"] = request.POST.getlist("players")
    error = None
    try:
        services.auction_gm(request.user, auction, action=action, **data)
    except ValidationError as exc:
        error = " ".join(_error_messages(exc))
    except PermissionDenied as exc:
        error = str(exc)
    return _auction_reply(request, auction, error)


@login_required
def my_characters(request: HttpRequest) -> HttpResponse:
    """The user's characters, their campaigns' rosters and, for GMs, what awaits review."""
    from campaigns.models import Membership

    memberships = list(Membership.objects.filter(user=request.user).select_related("campaign"))
    gm_campaigns = [m.campaign_id for m in memberships if m.role in (Role.GM, Role.COGM)]
    return render(
        request,
        "characters/mine.html",
        {
            "characters": list(Character.objects.filter(owner=request.user, is_npc=False).select_related("campaign")),
            "memberships": memberships,
            "to_review": list(
                Character.objects.filter(
                    campaign_id__in=gm_campaigns, status=Character.Status.SUBMITTED
                ).select_related("campaign")
            ),
            "changes": list(
                ChangeRequest.objects.filter(
                    character__campaign_id__in=gm_campaigns, status=ChangeRequest.Status.PENDING
                ).select_related("character", "author")
            ),
        },
    )


def sheet_notice(request: HttpRequest, pk: int) -> HttpResponse:
    """htmx fragment: a banner when the sheet moved past the version on screen."""
    character = access.get_character_for_user(request.user, pk, write=True)
    raw = request.GET.get("v", "")
    shown = int(raw) if is_digits(raw) else character.version
    pending = character.change_requests.filter(status=ChangeRequest.Status.PENDING).count()
    return render(
        request,
        "characters/_notice.html",
        {"character": character, "changed": shown != character.version, "pending": pending},
    )
