"""The attribute auction's pages: open (GMs), the live page and its panel, player and GM actions."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns.access import get_campaign_for_user, is_gm
from characters import sheetform as sf
from characters.access import is_owner
from characters.models import Character
from characters.views.common import error_messages
from rules.ambre import auction as rules_auction
from rules.ambre import tables as T
from rules.base import is_digits
from systems.ambre import services
from systems.ambre.access import get_auction_for_user
from systems.ambre.forms import AuctionOpenForm
from systems.ambre.labels import LOT_STATUS, RANK_LABELS
from systems.ambre.models import Auction


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
            form.add_error(None, error_messages(exc))
        else:
            return redirect("ambre:auction", pk=auction.pk)
    return render(request, "ambre/auction_open.html", {"campaign": campaign, "form": form})


def _auction_context(request: HttpRequest, auction: Auction) -> dict[str, Any]:
    auction = services.check_auction_timeout(auction)
    gm = is_gm(request.user, auction.campaign)
    characters = {str(c.pk): c for c in Character.objects.filter(pk__in=auction.character_ids())}
    mine = [c for pid, c in characters.items() if is_owner(request.user, c)]
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
    auction = get_auction_for_user(request.user, pk)
    return render(request, "ambre/auction.html", _auction_context(request, auction))


def auction_panel(request: HttpRequest, pk: int) -> HttpResponse:
    auction = get_auction_for_user(request.user, pk)
    return render(request, "ambre/_auction_panel.html", _auction_context(request, auction))


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
    auction = get_auction_for_user(request.user, pk)
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
            error = " ".join(error_messages(exc))
        except PermissionDenied as exc:
            error = str(exc)
    return _auction_reply(request, auction, error)


def _auction_reply(request: HttpRequest, auction: Auction, error: str | None) -> HttpResponse:
    if request.htmx:
        context = _auction_context(request, Auction.objects.get(pk=auction.pk))
        context["error"] = error
        return render(request, "ambre/_auction_panel.html", context, status=200)
    if error:
        messages.error(request, error)
    return redirect("ambre:auction", pk=auction.pk)


@login_required
@require_POST
def auction_control(request: HttpRequest, pk: int) -> HttpResponse:
    auction = get_auction_for_user(request.user, pk)
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
        error = " ".join(error_messages(exc))
    except PermissionDenied as exc:
        error = str(exc)
    return _auction_reply(request, auction, error)
