"""Change requests of a kind another app prices and follows (a purchase: progression).

A change request whose ``purchase`` is set is a purchase (*achat*): its sheet and
ledger entries are not the proposed sheet's but what the rules' ``purchase()``
gives on the sheet and balances of the moment of decision, within the limits
progression counts (per session). Progression registers the handler in its
``AppConfig.ready()`` (:func:`register`); characters never imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only
    from campaigns.models import Campaign
    from characters.models import ChangeRequest, Character
    from rules.base import PurchaseResult

#: The kind of a change request whose ``purchase`` is set.
PURCHASE = "purchase"


@dataclass(frozen=True)
class ChangeKind:
    """How the owning app handles one kind of change request."""

    key: str
    #: The request's readable name (the purchase kind's), in the reader's language.
    label: Callable[[Mapping[str, Any]], str]
    #: The request priced on the character's current sheet and balances.
    preview: Callable[[Character, Mapping[str, Any]], PurchaseResult]
    #: The play session the approved entries are written with (``None`` between sessions).
    session: Callable[[Campaign], Any]
    #: Data added to each ledger entry of the approval (links to the app's own records).
    links: Callable[[ChangeRequest], dict[str, Any]]
    #: Mirror a decision (approved, rejected, withdrawn) on the app's own records: ``(change, actor, comment)``.
    decided: Callable[[ChangeRequest, Any, str], None]


_kinds: dict[str, ChangeKind] = {}


def register(kind: ChangeKind) -> None:
    _kinds[kind.key] = kind


def key_of(change: ChangeRequest) -> str | None:
    """The kind of a change request: ``None`` for a plain edit of the sheet."""
    return PURCHASE if change.purchase is not None else None


def kind_of(change: ChangeRequest) -> ChangeKind | None:
    """The handler of a change request's kind; ``None`` for a plain edit.

    A purchase with no handler installed raises ``LookupError`` (nothing prices it).
    """
    key = key_of(change)
    if key is None:
        return None
    try:
        return _kinds[key]
    except KeyError as exc:
        raise LookupError(f"no handler registered for {key!r} change requests") from exc
