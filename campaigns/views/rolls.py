"""Rolls and the dice chain: actions on a stored roll, the chain's check, export, checkpoint and seed."""

from __future__ import annotations

import re
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns import access, checkpoints, dice, services
from campaigns.models import (
    Roll,
)
from campaigns.views.common import _campaign_context


@login_required
@require_POST
def roll_difficulty(request: HttpRequest, roll_id: int) -> HttpResponse:
    """The GM sets the difficulty of a test after the roll; the re-reading is a new roll."""
    roll = get_object_or_404(Roll.objects.select_related("campaign", "post"), pk=roll_id)
    if not access.can_see_roll(request.user, roll) or roll.post_id is None:
        raise Http404
    try:
        reread = services.set_roll_difficulty(request.user, roll, difficulty=request.POST.get("difficulty"))
    except ValidationError as exc:
        for error in exc.messages:
            messages.error(request, error)
    else:
        messages.success(request, _("Difficulty set: roll #%(n)d records the result.") % {"n": reread.sequence})
    return redirect("campaigns:post", post_id=roll.post_id)


@login_required
@require_POST
def roll_gm_inputs(request: HttpRequest, roll_id: int) -> HttpResponse:
    """The GM adds GM-only inputs to a sheet roll after it; the same draws are re-read in a new roll."""
    roll = get_object_or_404(Roll.objects.select_related("campaign", "post"), pk=roll_id)
    if not access.can_see_roll(request.user, roll) or roll.post_id is None:
        raise Http404
    source = roll.request.get("from_sheet") if isinstance(roll.request, dict) else None
    declared: dict[str, Any] = {}
    for spec in (source or {}).get("gm_fields") or []:
        name = f"gm__{spec.get('path')}"
        raw = request.POST.get(name, "")
        if spec.get("kind") == "bool":
            if raw:
                declared[spec["path"]] = True
        elif raw != "" and spec.get("kind") == "int":
            try:
                declared[spec["path"]] = int(raw)
            except ValueError:
                messages.error(request, _("%(field)s: enter a whole number.") % {"field": spec["path"]})
                return redirect("campaigns:post", post_id=roll.post_id)
        elif raw != "":
            declared[spec["path"]] = raw[:100]
    try:
        reread = services.add_gm_inputs(request.user, roll, declared=declared)
    except ValidationError as exc:
        for error in exc.messages:
            messages.error(request, error)
    else:
        messages.success(request, _("GM's inputs added: roll #%(n)d records the result.") % {"n": reread.sequence})
    return redirect("campaigns:post", post_id=roll.post_id)


def rolls_verify(request: HttpRequest, slug: str) -> HttpResponse:
    """Recompute the campaign's roll chain on the server, and offer the in-browser check."""
    campaign = access.get_campaign_for_user(request.user, slug)
    ok, problems = dice.verify_chain(campaign)
    messages_ = _verify_messages()
    problems = [_translate_problem(p, messages_) for p in problems]
    count = Roll.objects.filter(campaign=campaign).count()
    seeds = dice.export_seeds(campaign)
    ctx = _campaign_context(
        request,
        campaign,
        ok=ok,
        problems=problems,
        count=count,
        last_hash=dice.chain_head(campaign)["hash"] if count else None,
        seeds=list(reversed(seeds)),
        server_nonces=Roll.objects.filter(campaign=campaign, fair__nonce_by="server").count(),
        verify_messages=messages_,
    )
    return render(request, "campaigns/rolls_verify.html", ctx)


_SERVER_PROBLEMS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"roll #(\d+): expected sequence (\d+) \(a roll is missing\)"), "sequence"),
    (re.compile(r"roll #(\d+): previous hash does not match roll #\d+"), "prev"),
    (re.compile(r"roll #(\d+): content does not match its hash \(altered\)"), "hash"),
    (re.compile(r"roll #(\d+): drawn from a seed whose commitment was not published"), "unpublished"),
    (re.compile(r"roll #(\d+): the request does not match the one the dice were drawn for"), "request"),
    (re.compile(r"roll #(\d+): the dice shown differ from the dice drawn"), "shown"),
    (re.compile(r"roll #(\d+): the revealed seed does not match its commitment"), "commitment"),
    (re.compile(r"roll #(\d+): the dice are not those of the seed, nonce and request"), "dice"),
    (re.compile(r"roll #(\d+): its dice differ from those of roll #(\d+)"), "derived"),
    (re.compile(r"roll #(\d+): dice not drawn from a committed seed"), "unproven"),
    (re.compile(r"roll #(\d+): the total is not the one its dice give"), "total"),
]


def _translate_problem(problem: str, messages_: dict[str, str]) -> str:
    """A problem of ``dice.verify_chain`` (English, for the command and the API) in the page's language."""
    for pattern, code in _SERVER_PROBLEMS:
        match = pattern.fullmatch(problem)
        if match:
            text = messages_[code]
            for i, value in enumerate(match.groups()):
                text = text.replace("{" + str(i) + "}", value)
            return text
    return problem


def _verify_messages() -> dict[str, str]:
    """The in-browser verifier's messages ({0}, {1}: numbers filled in by static/js/rolls.js)."""
    return {
        "ok": _(
            "✔ Verified by your browser: the chain, every revealed die, the checkpoints and the heads you saw agree."
        ),
        "broken": _("✘ First discrepancy: {1}"),
        "failed": _("The check could not run:"),
        "stats": _(
            "Rolls: {0}; recomputed from a revealed seed: {1}; waiting for their seed: {2}; without a browser"
            " nonce: {3}; heads seen by this browser: {4}; signed checkpoints: {5}."
        ),
        "foreseen": _("Rolls drawn from a seed whose commitment this browser had seen before: {0}."),
        "sequence": _("roll #{0} is where roll #{1} should be (a roll is missing or out of order)."),
        "prev": _("roll #{0} does not point to the roll before it."),
        "hash": _("roll #{0} does not match its hash (altered)."),
        "shown_content": _("roll #{0}: the content shown differs from the content hashed."),
        "unpublished": _("roll #{0} was drawn from a seed whose commitment was not published."),
        "request": _("roll #{0}: the request does not match the one its dice were drawn for."),
        "shown": _("roll #{0}: the dice shown differ from the dice drawn."),
        "commitment": _("roll #{0}: the revealed seed does not match its commitment."),
        "dice": _("roll #{0}: the dice are not those its seed, nonce and request give."),
        "derived": _("roll #{0}: its dice differ from those of roll #{1} it re-reads."),
        "unproven": _("roll #{0} has dice that were not drawn from a committed seed."),
        "total": _("roll #{0}: the total is not the one its dice give."),
        "head_missing": _("roll #{0}, which this browser saw, is no longer in the chain."),
        "head_rewritten": _("roll #{0}: the chain was rewritten since this browser saw it."),
        "commitment_changed": _("seed #{0}: its commitment differs from the one this browser was shown."),
        "signature": _("the checkpoint at roll #{0} is not signed by this site's key."),
        "no_ed25519": _("this browser cannot check Ed25519 signatures (checkpoint at roll #{0})."),
        "checkpoint_missing": _("roll #{0} of a signed checkpoint is no longer in the chain."),
        "checkpoint_rewritten": _("roll #{0}: the chain differs from the signed checkpoint."),
        "key_changed": _("this site's signing key differs from the one this browser saw before."),
    }


def rolls_export(request: HttpRequest, slug: str) -> JsonResponse:
    """The chain as JSON: rolls the user may not see appear only as digests."""
    campaign = access.get_campaign_for_user(request.user, slug)
    response = JsonResponse(
        checkpoints.export_document(request.user, campaign), json_dumps_params={"ensure_ascii": False}
    )
    if request.GET.get("download"):
        response["Content-Disposition"] = f'attachment; filename="tablee-rolls-{campaign.slug}.json"'
    return response


def rolls_checkpoint(request: HttpRequest, slug: str) -> JsonResponse:
    """A signed checkpoint of the chain head, as a file to keep."""
    campaign = access.get_campaign_for_user(request.user, slug)
    response = JsonResponse(checkpoints.checkpoint(campaign))
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response["Content-Disposition"] = f'attachment; filename="tablee-checkpoint-{campaign.slug}-{stamp}.json"'
    return response


@require_POST
@login_required
def rolls_rotate(request: HttpRequest, slug: str) -> HttpResponse:
    """A GM reveals the current dice seed now (the next commitment is published at once)."""
    campaign = access.get_campaign_for_user(request.user, slug)
    try:
        revealed, _current = services.rotate_roll_seed(request.user, campaign)
    except ValidationError as exc:
        for message in exc.messages:
            messages.error(request, message)
    else:
        messages.success(
            request, _("Seed #%(n)d is revealed: its rolls can now be recomputed.") % {"n": revealed.index}
        )
    return redirect("campaigns:rolls_verify", slug=campaign.slug)


def rolls_public_key(request: HttpRequest) -> JsonResponse:
    """``/.well-known/tablee-rolls-key``: the public key that signs dice checkpoints."""
    response = JsonResponse(checkpoints.public_key_info())
    response["Access-Control-Allow-Origin"] = "*"
    return response
