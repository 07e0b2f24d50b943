"""The sheet page, its print view, export and the live notice."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.text import slugify
from django.utils.translation import get_language

from campaigns import play
from characters import access, services
from characters import sheetform as sf
from characters.forms import (
    PortraitForm,
    StatusForm,
)
from characters.models import ChangeRequest, Character
from characters.read import CharacterRead, character_read, latest_change_requests, readable_character
from rules.base import is_digits


# ---------------------------------------------------------------------------
# The sheet page: rendered from the character read model (characters.read)
# ---------------------------------------------------------------------------
def _sheet_context(character: Character, read: CharacterRead) -> dict[str, Any]:
    """The full sheet's budget, errors and validity (``read.full`` only). Its groups and derived
    values are laid out by :func:`characters.sheetform.sheet_page` (``page.groups``)."""
    assert read.full and read.sheet is not None and read.evaluation is not None
    system = character.rule_system
    sheet, result = read.sheet, read.evaluation
    budget, frozen = services.shown_budget(character, result)
    view = sf.budget_view(budget) if budget else None
    if view and frozen and read.ledger is not None:
        # Creation is over: the headline figure is what the ledger holds now, in the budget's currency.
        view["frozen"] = True
        view["balance"] = read.ledger.balances.get(view["currency"], 0)
    return {
        "system": system,
        "budget": view,
        "sheet_errors": sf.leftover_errors(sf.error_map(result.all_errors()), system.sheet_fields()),
        "valid": result.valid,
        "sheet": sheet,
        "derived_raw": result.derived or {},
    }


def _portrait_fields(language: str, max_bytes: int) -> SafeString:
    """The portrait upload's fields, as ``partials/form_fields.html`` renders an empty
    :class:`PortraitForm`: the same HTML on every sheet page in ``language`` (its label and help
    text, which names ``max_bytes``), rendered once per process instead of once per page; each
    time with ``DEBUG``, where templates are edited while the server runs."""
    if settings.DEBUG:
        return _render_portrait_fields()
    return _kept_portrait_fields(language, max_bytes)


def _render_portrait_fields() -> SafeString:
    return render_to_string("partials/form_fields.html", {"form": PortraitForm()})


@lru_cache(maxsize=16)
def _kept_portrait_fields(language: str, max_bytes: int) -> SafeString:
    return _render_portrait_fields()


def character_detail(request: HttpRequest, pk: int) -> HttpResponse:
    character = readable_character(request.user, pk)
    read = character_read(request.user, character)
    context: dict[str, Any] = {
        "character": character,
        "read": read,
        "full": read.full,
        "is_gm": read.is_gm,
        "is_owner": read.is_owner,
        "system_name": read.system_name,  # also for visitors (not the bare slug)
    }
    if read.full:
        context.update(_sheet_context(character, read))
        show_creation = read.is_gm or character.status in (Character.Status.DRAFT, Character.Status.SUBMITTED)
        context.update(
            {
                "page": sf.sheet_page(
                    character.rule_system, context["sheet"], context["derived_raw"], show_creation=show_creation
                ),
                "show_budget": show_creation and context.get("budget"),
                "ledger": read.ledger,
                "changes": latest_change_requests(character),
                "can_edit": access.can_edit_directly(request.user, character),
                "can_request": access.can_request_change(request.user, character),
                "status_form": StatusForm(initial={"status": character.status}),
                "portrait_fields": _portrait_fields(get_language() or "", settings.TABLEE_MAX_PORTRAIT_BYTES),
                "first_step": (character.rule_system.creation_steps() or [None])[0],
                "roll_panel": play.sheet_panel(request.user, character, request.LANGUAGE_CODE or "fr"),
            }
        )
    return render(request, "characters/detail.html", context)


def character_print(request: HttpRequest, pk: int) -> HttpResponse:
    character = readable_character(request.user, pk, full=True)
    read = character_read(request.user, character)
    context: dict[str, Any] = {
        "character": character,
        "read": read,
        "full": True,
        "ledger": read.ledger,
        "system_name": read.system_name,
    }
    context.update(_sheet_context(character, read))
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
