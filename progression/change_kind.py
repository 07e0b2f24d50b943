"""Progression's handler of purchase change requests (:mod:`characters.change_kinds`).

A purchase (*achat*) is a character change request whose ``purchase`` holds the
request; the characters app asks this handler to price it on the sheet and
balances of the moment (per-session limits counted here), for the session its
entries belong to, and to mirror each decision on the linked
:class:`progression.models.PurchaseRequest`. Registered in ``ProgressionConfig.ready()``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from characters import change_kinds
from characters.models import ChangeRequest, Character
from progression import services
from progression.labels import purchase_kind_label
from progression.models import PurchaseRequest
from rules.base import PurchaseResult


def label(request: Mapping[str, Any]) -> str:
    return purchase_kind_label(str(request.get("kind", "")))


def preview(character: Character, request: Mapping[str, Any]) -> PurchaseResult:
    return services.preview_purchase(character, dict(request))


def links(change: ChangeRequest) -> dict[str, Any]:
    """Each ledger entry of the approval names the purchase request."""
    pk = PurchaseRequest.objects.filter(change_request=change).values_list("pk", flat=True).first()
    return {} if pk is None else {"purchase_request": pk}


def decided(change: ChangeRequest, actor: Any, comment: str) -> None:
    """Mirror the decision on the linked purchase request, if any."""
    values: dict[str, Any] = {"status": change.status, "decided_at": change.decided_at}
    if change.status != ChangeRequest.Status.WITHDRAWN:
        values["decided_by"] = actor
    if comment.strip():
        values["comment"] = comment.strip()[:500]
    PurchaseRequest.objects.filter(change_request=change).update(**values)


PURCHASE = change_kinds.ChangeKind(
    key=change_kinds.PURCHASE,
    label=label,
    preview=preview,
    session=services.current_session,
    links=links,
    decided=decided,
)


def register() -> None:
    change_kinds.register(PURCHASE)
