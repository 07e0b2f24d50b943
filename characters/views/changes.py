"""Change requests: the diff page and the decisions."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns.access import is_gm
from characters import access, change_kinds, services
from characters import sheetform as sf
from characters.forms import (
    CommentForm,
)
from characters.ledger import balances
from characters.models import ChangeRequest, LedgerEntry, SheetVersion
from characters.views.common import error_messages
from rules.base import LedgerDraft, Msg


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
    handler = change_kinds.kind_of(change)
    if handler is not None and change.purchase is not None:
        # A purchase is priced by the rules' purchase(), on the current sheet and balances while pending
        # (by the handler its app registered: characters.change_kinds).
        purchase = {
            "kind": str(change.purchase.get("kind", "")),
            "label": handler.label(change.purchase),
            "fields": sf.purchase_summary(
                system.purchase_fields().get(str(change.purchase.get("kind", "")), ()),
                change.purchase,
                before_sheet,
            ),
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
        messages.error(request, " ".join(error_messages(exc)))
    except PermissionDenied as exc:
        messages.error(request, str(exc) or _("You may not do this."))
    return redirect("characters:change", pk=pk)
