"""The attribute auction's writes (L5, L17-L22): one function each, as in :mod:`characters.services`.

GMs open and run it; players act for their own characters. Closed attributes
go to the sheets (a recorded version) and to the karma ledger, in the same
transaction; live events go out on ``auction:<id>`` and ``campaign:<id>``.
"""

from __future__ import annotations

import copy
from datetime import timedelta
from typing import Any

from celery import current_app
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from campaigns.access import is_gm, role_of
from campaigns.models import Campaign
from characters import access
from characters.ledger import append_entry
from characters.models import Character, LedgerEntry
from characters.services import SheetInvalid, publish_sheet, record_version, system_settings
from characters.sheetform import msg
from live.events import publish
from rules.ambre import SYSTEM
from rules.ambre import auction as rules_auction
from rules.base import LedgerDraft, RulesError
from systems.ambre.models import Auction

#: The expiry task (:mod:`systems.ambre.tasks`), by the name it always had: queued messages keep working.
EXPIRY_TASK = "characters.expire_auction"
#: The reason of the sheet versions the auction writes (shown in the reader's language).
RESULTS_REASON = gettext_noop("auction results")


def _publish_auction(auction: Auction) -> None:
    publish(f"auction:{auction.pk}", "auction-updated", {"auction": auction.pk, "seq": auction.state.get("seq", 0)})
    if auction.deadline is not None:
        _schedule_expiry(auction.pk, auction.deadline)


def _schedule_expiry(auction_id: int, deadline: Any) -> None:
    """After commit, ask a worker to apply the timeout at the deadline (a no-op if it moved)."""

    def send() -> None:
        try:
            current_app.tasks[EXPIRY_TASK].apply_async((auction_id,), eta=deadline)
        except Exception:  # the broker being down must not fail the bid; pages expire lazily
            pass

    transaction.on_commit(send)


def _rules_invalid(exc: RulesError) -> SheetInvalid:
    return SheetInvalid(exc.errors)


def open_auction(
    actor: Any,
    campaign: Campaign,
    *,
    characters: list[Character],
    mode: str = "open",
    timeout_seconds: int | None = None,
) -> Auction:
    """A GM opens the attribute auction for the starting characters (L5, L22)."""
    if role_of(actor, campaign) is None:
        raise Http404
    if not is_gm(actor, campaign):
        raise PermissionDenied(_("Only GMs open an auction."))
    if campaign.system != SYSTEM.slug:
        raise ValidationError({"__all__": [_("The attribute auction belongs to Ambre campaigns.")]})
    if Auction.objects.filter(campaign=campaign).exclude(status=Auction.Status.CLOSED).exists():
        raise ValidationError({"__all__": [_("An auction is already running in this campaign.")]})
    chosen = [c for c in characters if c.campaign_id == campaign.pk and not c.is_npc]
    if len(chosen) < 1:
        raise ValidationError({"characters": [_("Choose at least one player character.")]})
    settings = system_settings(campaign)
    options: dict[str, Any] = {"mode": mode}
    if isinstance(settings.get("starting_budget"), int):
        options["budget"] = settings["starting_budget"]
    if isinstance(settings.get("debt_limit"), int):
        options["debt_limit"] = settings["debt_limit"]
    budgets = {str(c.pk): c.sheet.get("creation_points") for c in chosen}
    budgets = {k: v for k, v in budgets.items() if isinstance(v, int) and not isinstance(v, bool)}
    if budgets:
        options["budgets"] = budgets
    try:
        state = rules_auction.new_auction([str(c.pk) for c in chosen], options)
    except RulesError as exc:
        raise _rules_invalid(exc) from exc
    with transaction.atomic():
        auction = Auction.objects.create(
            campaign=campaign,
            state=state.to_dict(),
            created_by=actor,
            timeout_seconds=timeout_seconds or None,
            deadline=timezone.now() + timedelta(seconds=timeout_seconds) if timeout_seconds else None,
        )
        publish(f"campaign:{campaign.pk}", "auction-opened", {"auction": auction.pk})
        _publish_auction(auction)
    return auction


def _lock_auction(auction: Auction) -> Auction:
    return Auction.objects.select_for_update().select_related("campaign").get(pk=auction.pk)


def _apply_event(locked: Auction, event: dict[str, Any]) -> None:
    before_current = locked.state.get("current")
    try:
        state = rules_auction.apply(locked.state, event)
    except RulesError as exc:
        raise _rules_invalid(exc) from exc
    locked.state = state.to_dict()
    if locked.timeout_seconds and (event.get("type") == "bid" or state.current != before_current):
        locked.deadline = timezone.now() + timedelta(seconds=locked.timeout_seconds)
    if state.status == "closed":
        locked.status = Auction.Status.CLOSED
        locked.deadline = None
    locked.save()
    _sync_auction_results(locked)
    _publish_auction(locked)


def auction_act(actor: Any, auction: Auction, *, character: Character, event: dict[str, Any]) -> Auction:
    """A player bids, passes, downgrades (or cancels it) or buys up for one of their characters."""
    if not access.can_see_public(actor, character) or role_of(actor, auction.campaign) is None:
        raise Http404
    if not access.is_owner(actor, character) or str(character.pk) not in auction.state.get("players", []):
        raise PermissionDenied(_("You take part in this auction only for your own characters."))
    kind = event.get("type")
    if kind not in ("bid", "pass", "downgrade", "cancel_downgrade", "buy_up"):
        raise ValidationError({"type": [_("Unknown action.")]})
    clean = {k: v for k, v in event.items() if k in ("type", "attribute", "amount", "rank")}
    clean["player"] = str(character.pk)
    with transaction.atomic():
        locked = _lock_auction(auction)
        _expire(locked)
        if locked.status == Auction.Status.PAUSED:
            raise ValidationError({"__all__": [_("The auction is paused by the GM.")]})
        if locked.status == Auction.Status.CLOSED and kind != "buy_up":
            raise ValidationError({"__all__": [_("The auction is closed.")]})
        _apply_event(locked, clean)
    return locked


def auction_gm(actor: Any, auction: Auction, *, action: str, **data: Any) -> Auction:
    """GM controls: ``pause``, ``resume``, ``timeout`` (seconds, 0 = none), ``close`` (current
    attribute), ``comparison`` (two characters of a closed attribute)."""
    if role_of(actor, auction.campaign) is None:
        raise Http404
    if not is_gm(actor, auction.campaign):
        raise PermissionDenied(_("Only GMs run the auction."))
    with transaction.atomic():
        locked = _lock_auction(auction)
        if action == "pause":
            if locked.status != Auction.Status.RUNNING:
                raise ValidationError({"__all__": [_("The auction is not running.")]})
            locked.status = Auction.Status.PAUSED
            locked.deadline = None
            locked.save()
            _publish_auction(locked)
        elif action == "resume":
            if locked.status != Auction.Status.PAUSED:
                raise ValidationError({"__all__": [_("The auction is not paused.")]})
            locked.status = Auction.Status.RUNNING
            if locked.timeout_seconds:
                locked.deadline = timezone.now() + timedelta(seconds=locked.timeout_seconds)
            locked.save()
            _publish_auction(locked)
        elif action == "timeout":
            seconds = data.get("seconds")
            if isinstance(seconds, bool) or not isinstance(seconds, int) or not 0 <= seconds <= 7 * 24 * 3600:
                raise ValidationError({"seconds": [_("Enter a number of seconds between 0 and 604800.")]})
            locked.timeout_seconds = seconds or None
            running = locked.status == Auction.Status.RUNNING
            locked.deadline = timezone.now() + timedelta(seconds=seconds) if seconds and running else None
            locked.save()
            _publish_auction(locked)
        elif action == "close":
            if locked.status == Auction.Status.CLOSED:
                raise ValidationError({"__all__": [_("The auction is closed.")]})
            event: dict[str, Any] = {"type": "close"}
            if data.get("attribute"):
                event["attribute"] = data["attribute"]
            _apply_event(locked, event)
        elif action == "comparison":
            _apply_event(
                locked,
                {"type": "comparison", "attribute": data.get("attribute"), "players": list(data.get("players") or [])},
            )
        else:
            raise ValidationError({"action": [_("Unknown action.")]})
    return locked


def _expire(locked: Auction) -> bool:
    """Close the current attribute when the GM's timeout has passed."""
    if locked.status != Auction.Status.RUNNING or locked.deadline is None or locked.deadline > timezone.now():
        return False
    if locked.state.get("status") == "closed":
        return False
    _apply_event(locked, {"type": "close", "reason": "timeout"})
    return True


def check_auction_timeout(auction: Auction) -> Auction:
    """Called when a page or fragment is fetched: applies an expired timeout."""
    if auction.status != Auction.Status.RUNNING or auction.deadline is None or auction.deadline > timezone.now():
        return auction
    with transaction.atomic():
        locked = _lock_auction(auction)
        _expire(locked)
    return locked


def _sync_auction_results(auction: Auction) -> None:
    """Closed attributes go to the sheets (points, ladder positions) and to the
    karma ledger. Re-run after every event: entries are appended only for the
    difference with what the ledger already holds for this auction."""
    state = auction.state
    res = rules_auction.results(state)
    closed = [a for a in state["attributes"] if state["lots"][a]["status"] == "closed"]
    if not closed:
        return
    for pid, info in res["players"].items():
        character = Character.objects.select_for_update().filter(pk=int(pid), campaign=auction.campaign).first()
        if character is None:
            continue
        sheet = copy.deepcopy(character.sheet)
        for attr in closed:
            sheet.setdefault("attributes", {})[attr] = info["points"][attr]
            # What the owner may know (L18): the public position and his points when last compared. The true
            # ladder stays in the auction (GMs): another's buy-up never changes this sheet or its history.
            known = info["known_ranks"][attr]
            sheet.setdefault("ladder", {})[attr] = {
                "public_position": known["public_position"],
                "public_points": (state.get("public_points", {}).get(attr) or {}).get(pid),
            }
        if sheet != character.sheet:
            character.sheet = sheet
            character.version += 1
            character.save()
            record_version(character, None, _(RESULTS_REASON))
            publish_sheet(character)
        desired: dict[tuple[str, str], tuple[int, LedgerDraft]] = {}
        for draft in rules_auction.ledger(state, pid):
            attr = draft.data.get("attribute")
            if attr in closed:
                desired[(attr, draft.kind)] = (draft.amount, draft)
        existing: dict[tuple[str, str], int] = {}
        for entry in LedgerEntry.objects.filter(character=character, kind__in=["auction_bid", "rank_refund"]):
            if entry.data.get("auction") == auction.pk:
                key = (entry.data.get("attribute"), entry.kind)
                existing[key] = existing.get(key, 0) + entry.amount
        for key in set(desired) | set(existing):
            amount, draft = desired.get(key, (0, None))
            delta = amount - existing.get(key, 0)
            if not delta:
                continue
            attr, kind = key
            note = msg(draft.note) if draft else _("Auction correction")
            append_entry(
                character,
                "karma",
                delta,
                kind,
                note=note,
                data={"auction": auction.pk, "attribute": attr, **(draft.data if draft else {})},
                key=f"auction:{auction.pk}:{pid}:{attr}:{kind}:{state.get('seq', 0)}",
            )
    auction.results_applied = state.get("status") == "closed"
    auction.save(update_fields=["results_applied", "updated"])
