"""One notification per step of the play loop, sent to the right people only.

Each function is called by the owning service inside its transaction (so the
notification rolls back with the write). Who is told, and who must not be:

=====================  ===================================  ===========================
step                   told                                 never told
=====================  ===================================  ===========================
sheet submitted        the campaign's GMs                   other players, spectators
sheet returned         the owner                            everyone else
sheet approved         the owner                            everyone else
change request opened  the GMs                              other players, spectators
change decided         the owner                            everyone else
purchase requested     the GMs                              other players, spectators
purchase decided       the owner                            everyone else
awards confirmed       each awarded character's owner       other players, spectators
session opened/closed  every member                         —
GM-only post           the GMs                              players, spectators
=====================  ===================================  ===========================
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from campaigns.models import Notification, Post
from campaigns.notifications import session_changed as session_changed
from rhythm.services import gm_ids, notify

K = Notification.Kind


def _sheet_url(character: Any) -> str:
    return reverse("characters:detail", args=[character.pk])


def sheet_submitted(actor: Any, character: Any) -> None:
    notify(
        K.SHEET_SUBMITTED,
        gm_ids(character.campaign),
        character.campaign,
        actor=actor,
        text=character.name,
        url=_sheet_url(character),
    )


def sheet_returned(actor: Any, character: Any) -> None:
    if character.owner_id:
        notify(
            K.SHEET_RETURNED,
            [character.owner_id],
            character.campaign,
            actor=actor,
            text=character.name,
            url=_sheet_url(character),
        )


def sheet_approved(actor: Any, character: Any) -> None:
    if character.owner_id:
        notify(
            K.SHEET_APPROVED,
            [character.owner_id],
            character.campaign,
            actor=actor,
            text=character.name,
            url=_sheet_url(character),
        )


def change_opened(actor: Any, change: Any) -> None:
    character = change.character
    kind = K.PURCHASE_REQUESTED if change.purchase else K.CHANGE_OPENED
    notify(
        kind,
        gm_ids(character.campaign),
        character.campaign,
        actor=actor,
        text=character.name,
        url=reverse("characters:change", args=[change.pk]),
    )


def change_decided(actor: Any, change: Any) -> None:
    character = change.character
    owner = change.author_id if getattr(change, "author_id", None) else character.owner_id
    if owner:
        kind = K.PURCHASE_DECIDED if change.purchase else K.CHANGE_DECIDED
        notify(
            kind,
            [owner],
            character.campaign,
            actor=actor,
            text=character.name,
            url=reverse("characters:change", args=[change.pk]),
        )


def awards_confirmed(actor: Any, session: Any, characters: list[Any]) -> None:
    for character in characters:
        if character.owner_id and not character.is_npc:
            notify(
                K.AWARD_CONFIRMED,
                [character.owner_id],
                session.campaign,
                actor=actor,
                text=character.name,
                url=reverse("progression:character", args=[character.pk]),
            )


def reaction_needed(actor: Any, encounter: Any, target: Any) -> None:
    """A player's character is attacked and chooses its defence: its controller is told."""
    if target.controller_id:
        notify(
            K.REACTION,
            [target.controller_id],
            encounter.campaign,
            actor=actor,
            thread=encounter.thread,
            text=encounter.thread.title,
            url=reverse("combat:detail", args=[encounter.pk]),
        )


def gm_only_post(post: Post) -> None:
    """A player's GM-only post: its GMs are told (the author is never told of their own post)."""
    if post.visibility != Post.Visibility.GM_ONLY or post.is_system:
        return
    author = post.author
    notify(
        K.GM_ONLY_POST,
        gm_ids(post.campaign),
        post.campaign,
        actor=author,
        thread=post.thread,
        post=post,
        text=post.thread.title,
    )
