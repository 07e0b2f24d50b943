""" "Waiting on you": everything across a member's campaigns that waits on them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from campaigns.models import Campaign, Invitation, Membership, Role
from characters.models import ChangeRequest, Character
from combat.models import Declaration
from progression.models import PurchaseRequest, SessionReview
from rhythm.models import (
    SceneMode,
    SceneRhythm,
)
from rhythm.services.scenes import deadline_at, scene_view, turn_state


@dataclass
class WaitingItem:
    kind: str
    label: str
    campaign: Campaign
    url: str
    since: dt.datetime | None
    deadline: dt.datetime | None = None


def waiting_on_you(user: Any) -> list[WaitingItem]:
    """Everything across the member's campaigns that waits on them, oldest first."""
    if not user.is_authenticated:
        return []
    items: list[WaitingItem] = []
    memberships = list(Membership.objects.filter(user=user).select_related("campaign"))
    gm_campaigns = [m.campaign for m in memberships if m.role in (Role.GM, Role.COGM)]
    campaign_ids = [m.campaign_id for m in memberships]
    for scene in (
        SceneRhythm.objects.filter(thread__campaign_id__in=campaign_ids)
        .exclude(mode=SceneMode.FREE)
        .select_related("thread__campaign")
    ):
        state = turn_state(scene)
        if user.pk in state.waiting_on:
            items.append(
                WaitingItem(
                    "turn",
                    _("Your turn in “%(where)s”") % {"where": scene.thread.title},
                    scene.thread.campaign,
                    reverse("campaigns:thread", args=[scene.thread_id]),
                    scene.turn_started_at if scene.mode == SceneMode.ORDER else scene.round_started_at,
                    deadline_at(scene),
                )
            )
    for invitation in Invitation.objects.filter(user=user, status=Invitation.Status.PENDING).select_related("campaign"):
        items.append(
            WaitingItem(
                "invitation",
                _("You are invited to “%(where)s”") % {"where": invitation.campaign.title},
                invitation.campaign,
                reverse("campaigns:notifications"),
                invitation.created,
            )
        )
    for character in Character.objects.filter(
        owner=user, campaign_id__in=campaign_ids, status=Character.Status.DRAFT, is_npc=False
    ).select_related("campaign"):
        if character.gm_comment:
            items.append(
                WaitingItem(
                    "sheet_returned",
                    _("The sheet of %(name)s came back from your GM") % {"name": character.name},
                    character.campaign,
                    reverse("characters:detail", args=[character.pk]),
                    character.updated,
                )
            )
    if gm_campaigns:
        for character in Character.objects.filter(
            campaign__in=gm_campaigns, status=Character.Status.SUBMITTED
        ).select_related("campaign"):
            items.append(
                WaitingItem(
                    "sheet_submitted",
                    _("Review the sheet of %(name)s") % {"name": character.name},
                    character.campaign,
                    reverse("characters:detail", args=[character.pk]),
                    character.updated,
                )
            )
        for change in ChangeRequest.objects.filter(
            character__campaign__in=gm_campaigns, status=ChangeRequest.Status.PENDING, purchase_request__isnull=True
        ).select_related("character__campaign"):
            items.append(
                WaitingItem(
                    "change",
                    _("Decide the change request for %(name)s") % {"name": change.character.name},
                    change.character.campaign,
                    reverse("characters:change", args=[change.pk]),
                    change.created,
                )
            )
    items.extend(_progression_items(user, campaign_ids, gm_campaigns))
    items.extend(_combat_items(user, campaign_ids))
    epoch = timezone.make_aware(dt.datetime(1970, 1, 1))
    items.sort(key=lambda item: item.since or epoch)
    return items


def _progression_items(user: Any, campaign_ids: list[int], gm_campaigns: list[Campaign]) -> list[WaitingItem]:
    """Award sheets the GM still has to confirm, and purchases to decide."""
    items = []
    if not gm_campaigns:
        return items
    for review in SessionReview.objects.filter(
        session__campaign__in=gm_campaigns, status__in=[SessionReview.Status.PENDING, SessionReview.Status.REOPENED]
    ).select_related("session__campaign"):
        session = review.session
        items.append(
            WaitingItem(
                "awards",
                _("Confirm the awards of “%(title)s”") % {"title": session.title or session.campaign.title},
                session.campaign,
                reverse("progression:session_awards", args=[session.pk]),
                session.closed_at or review.created,
            )
        )
    for purchase in PurchaseRequest.objects.filter(
        character__campaign__in=gm_campaigns, status=PurchaseRequest.Status.PENDING
    ).select_related("character__campaign"):
        url = (
            reverse("characters:change", args=[purchase.change_request_id])
            if purchase.change_request_id
            else reverse("progression:character", args=[purchase.character_id])
        )
        items.append(
            WaitingItem(
                "purchase",
                _("Decide the purchase for %(name)s") % {"name": purchase.character.name},
                purchase.character.campaign,
                url,
                purchase.created,
            )
        )
    return items


def _combat_items(user: Any, campaign_ids: list[int]) -> list[WaitingItem]:
    """Defences the member's characters must choose in a running fight (*réaction attendue*)."""
    items = []
    pending = Declaration.objects.filter(
        defence_status="pending", target__controller=user, round__encounter__campaign_id__in=campaign_ids
    ).select_related("target", "participant", "round__encounter__campaign", "round__encounter__thread")
    for declaration in pending:
        encounter = declaration.round.encounter
        items.append(
            WaitingItem(
                "reaction",
                _("%(target)s must choose how to defend against %(actor)s")
                % {"target": declaration.target.name, "actor": declaration.participant.name},
                encounter.campaign,
                reverse("combat:detail", args=[encounter.pk]),
                declaration.defence_asked,
            )
        )
    return items


def waiting_in_campaign(campaign: Campaign) -> list[dict[str, Any]]:
    """For the GM's campaign page: each timed or ordered scene, who it waits on and since when."""
    rows = []
    for scene in (
        SceneRhythm.objects.filter(thread__campaign=campaign).exclude(mode=SceneMode.FREE).select_related("thread")
    ):
        view = scene_view(campaign.created_by, scene.thread) if campaign.created_by else None
        if view is None or not view.waiting_on:
            continue
        rows.append({"thread": scene.thread, "view": view})
    return rows
