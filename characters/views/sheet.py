"""The sheet page, its print view, export and the live notice."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.text import slugify

from campaigns import play
from campaigns.access import is_gm
from characters import access, services
from characters import sheetform as sf
from characters.forms import (
    PortraitForm,
    ReviewForm,
    StatusForm,
)
from characters.ledger import balances
from characters.models import Auction, ChangeRequest, Character, LedgerEntry
from rules.base import is_digits


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
