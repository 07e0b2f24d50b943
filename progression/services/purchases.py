"""Players: balance, what they can afford, purchase requests (decided by a GM)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlencode

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404
from django.utils.translation import get_language
from django.utils.translation import gettext as _

import rules
from campaigns.access import is_gm
from campaigns.models import Campaign, PlaySession
from characters import ledger
from characters import services as character_services
from characters import signals as character_signals
from characters.models import ChangeRequest, Character, LedgerEntry
from live.events import publish
from progression.labels import purchase_kind_label
from progression.models import (
    PurchaseRequest,
)
from progression.services.access import _require_gm, can_see_ledger, is_owner
from rules.base import FieldError, RuleSystem

LIVE_KIND_PURCHASE = "progression-purchase"


def current_session(campaign: Campaign) -> PlaySession | None:
    return PlaySession.objects.filter(campaign=campaign, status=PlaySession.Status.OPEN).first()


def session_purchases(character: Character) -> list[dict[str, Any]]:
    """Purchases already approved in the current session (per-session limits).

    Reading: the window is the open session; between sessions it is what was
    bought since the last session closed. A new session starts empty, which
    is how the limits reset (Altaride L59, L79, L115, L161, L219–L220).
    """
    campaign = character.campaign
    qs = LedgerEntry.objects.filter(character=character, kind=LedgerEntry.Kind.PURCHASE)
    open_session = current_session(campaign)
    if open_session is not None:
        qs = qs.filter(session=open_session)
    else:
        last = PlaySession.objects.filter(campaign=campaign, closed_at__isnull=False).order_by("-closed_at").first()
        qs = qs.filter(session__isnull=True)
        if last is not None:
            qs = qs.filter(created__gt=last.closed_at)
    return [{"data": e.data} for e in qs.order_by("pk")]


#: Purchase fields only a GM may set (Altaride L140 derogation, GM confirmation).
GM_PURCHASE_FIELDS = frozenset({"gm_confirmed", "derogation"})


def _purchase_request(system: RuleSystem, character: Character, request: dict[str, Any]) -> dict[str, Any]:
    kind = request.get("kind")
    paths = {f.path for f in system.purchase_fields().get(kind, ())}
    full = dict(request)
    if "already_bought" in paths:
        full["already_bought"] = session_purchases(character)
    return full


def preview_purchase(character: Character, request: dict[str, Any]) -> rules.base.PurchaseResult:
    system = character.rule_system
    full = _purchase_request(system, character, request)
    return system.purchase(
        character.current_sheet(), full, ledger.balances(character), character.campaign.system_settings
    )


def _errors_dict(errors: Iterable[FieldError]) -> dict[str, list[str]]:
    lang = get_language() or "fr"
    out: dict[str, list[str]] = defaultdict(list)
    for e in errors:
        out[e.path or "__all__"].append(e.message.get(lang))
    return dict(out)


def request_purchase(actor: Any, character: Character, *, request: dict[str, Any]) -> PurchaseRequest:
    """A player asks to spend experience/karma; validated by the rules, decided by a GM.

    The request becomes a character change request (*demande de modification*,
    ``ChangeRequest.purchase`` = the request, sheet = what ``purchase()`` gives
    now): the GM decides there, and approval re-prices it on the sheet and
    balances of that moment. The :class:`PurchaseRequest` is kept, linked, as
    progression's list of requests (its status mirrors the change request's).
    """
    if not can_see_ledger(actor, character):
        raise Http404
    if not is_owner(actor, character) and not is_gm(actor, character.campaign):
        raise PermissionDenied
    if character.status != Character.Status.APPROVED:
        raise ValidationError({"__all__": _("Only an approved character can buy.")})
    if not is_gm(actor, character.campaign):
        # A player cannot speak for the GM: "gm_confirmed"/"derogation" are the GM's to give.
        request = {k: v for k, v in request.items() if k not in GM_PURCHASE_FIELDS}
    result = preview_purchase(character, request)
    if result.errors:
        raise ValidationError(_errors_dict(result.errors))
    kind = str(request.get("kind", ""))[:40]
    with transaction.atomic():
        change = ChangeRequest.objects.create(
            character=character,
            author=actor,
            base_version=character.version,
            name=character.name,
            sheet=result.sheet,
            schema_version=character.rule_system.schema_version,
            reason=(_("Purchase: %(kind)s") % {"kind": purchase_kind_label(kind)})[:300],
            purchase=request,
        )
        purchase = PurchaseRequest.objects.create(
            character=character,
            requested_by=actor,
            kind=kind,
            request=request,
            preview={"entries": [d.to_dict() for d in result.entries], "cost": -sum(d.amount for d in result.entries)},
            session=current_session(character.campaign),
            change_request=change,
        )
        publish(f"character:{character.pk}", "change-request", {"character": character.pk, "change": change.pk})
        character_signals.change_opened.send(ChangeRequest, actor=actor, change=change)
        publish(
            f"campaign:{character.campaign_id}",
            LIVE_KIND_PURCHASE,
            {"purchase": purchase.pk, "character": character.pk},
            users=[actor.pk],
        )
    return purchase


def decide_purchase(actor: Any, purchase: PurchaseRequest, *, approve: bool, comment: str = "") -> PurchaseRequest:
    """A GM approves or rejects a purchase: through its change request
    (``characters.services.approve_change``/``reject_change``: sheet + ledger
    entries in one transaction)."""
    character = purchase.character
    _require_gm(actor, character.campaign)
    purchase = PurchaseRequest.objects.select_related("change_request").get(pk=purchase.pk)
    if purchase.status != PurchaseRequest.Status.PENDING:
        raise ValidationError({"__all__": _("This request was already decided.")})
    change = purchase.change_request
    if change is None:
        raise ValidationError({"__all__": _("This request has no change request: ask the player to request it again.")})
    with transaction.atomic():
        if approve:
            character_services.approve_change(actor, change, comment=comment)
        else:
            character_services.reject_change(actor, change, comment=comment.strip() or _("Purchase rejected."))
        publish(
            f"campaign:{character.campaign_id}",
            LIVE_KIND_PURCHASE,
            {"purchase": purchase.pk, "character": character.pk},
            users=[character.owner_id] if character.owner_id else [],
        )
    purchase.refresh_from_db()
    return purchase


def affordable(character: Character, limit: int = 60) -> list[dict[str, Any]]:
    """What the character can buy now, as the rules offer it (``RuleSystem.purchase_offers``),
    each with the query string that prefills the purchase form."""
    system = character.rule_system
    lang = get_language() or "fr"
    offers = system.purchase_offers(
        character.current_sheet(),
        ledger.balances(character),
        character.campaign.system_settings,
        {"already_bought": session_purchases(character)},
    )
    out: list[dict[str, Any]] = []
    for offer in offers[:limit]:
        inputs = {k: v for k, v in (offer.get("request") or {}).items() if v is not None}
        first = next(iter(inputs.items()), ("", ""))
        out.append(
            {
                "kind": offer["kind"],
                "field": first[0],
                "value": first[1],
                "label": offer["label"].get(lang),
                "cost": offer["cost"],
                "query": urlencode({"kind": offer["kind"], **{f"p-{k}": v for k, v in inputs.items()}}),
            }
        )
    return out
