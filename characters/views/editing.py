"""The creation wizard, the full edit form (direct or as a change request), live validation and the profile."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns.access import is_gm
from characters import access, plugins, services
from characters import sheetform as sf
from characters.forms import (
    ProfileForm,
)
from characters.models import Character
from characters.views.common import _locked_paths, error_messages, posted_version
from rules.base import Field, FieldError, field_refs, is_digits, reference_text


# ---------------------------------------------------------------------------
# The creation wizard (and the full edit form)
# ---------------------------------------------------------------------------
def _steps(character: Character) -> list[Any]:
    return list(character.rule_system.creation_steps())


def _attach_rules_refs(nodes: list[dict[str, Any]], fields: tuple[Field, ...]) -> None:
    """The GM's rules reference ("Texte source, ligne 406") on each input of the sheet editor
    whose declaration cites the seed (``partials/rules_ref.html``); never for a player."""
    lang = get_language() or "fr"
    for node in nodes:
        found = sf.field_at(fields, str(node.get("path") or ""))
        text = reference_text(field_refs(found[0])) if found else None
        if text is not None:
            node["rules_ref"] = text.get(lang)
        for item in node.get("items") or []:
            _attach_rules_refs(item.get("children") or [], fields)


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
    if gm:
        _attach_rules_refs(nodes, fields)
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
                    expected_version=posted_version(request),
                    reason=_("wizard: %(step)s") % {"step": sf.msg(current.label)},
                    parse_errors=parse_errors,
                )
            except services.VersionConflict as exc:
                messages.error(request, error_messages(exc)[0])
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
    context["system_panels"] = plugins.wizard_panels(request, character, step, sheet)
    template = "characters/_step_form.html" if request.htmx and request.method == "POST" else "characters/wizard.html"
    return render(request, template, context, status=status)


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
                        expected_version=posted_version(request),
                        reason=request.POST.get("reason", "")[:300],
                        parse_errors=parse_errors,
                    )
                    messages.success(request, _("Sheet saved."))
                    return redirect("characters:detail", pk=pk)
                change = services.request_change(
                    request.user,
                    character,
                    sheet=parsed,
                    expected_version=posted_version(request),
                    reason=request.POST.get("reason", ""),
                    parse_errors=parse_errors,
                )
                messages.success(request, _("Change request sent to the GM."))
                return redirect("characters:change", pk=change.pk)
            except services.SheetInvalid as exc:
                sheet, extra, status = parsed, exc.field_errors, 400
            except ValidationError as exc:
                sheet, status = parsed, 409 if isinstance(exc, services.VersionConflict) else 400
                form_errors = error_messages(exc)
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
