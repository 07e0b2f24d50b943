"""Connects the rhythm to the forum (each new post moves its scene's turn on) and to the
characters' play loop (:mod:`characters.signals`: who is told of a sheet or change step)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_save
from django.dispatch import receiver

from campaigns.models import Post
from characters import signals as character_signals
from combat.signals import defence_asked
from progression import signals as progression_signals
from rhythm import loop, services
from rhythm.middleware import SESSION_KEY
from rhythm.models import MemberRhythm


@receiver(user_logged_in, dispatch_uid="rhythm-login-timezone")
def load_timezone(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """Keep the member's time zone in the session, so pages show their local times."""
    if request is not None and hasattr(request, "session"):
        name = MemberRhythm.objects.filter(user=user).values_list("timezone", flat=True).first()
        if name:
            request.session[SESSION_KEY] = name


@receiver(post_save, sender=Post, dispatch_uid="rhythm-post-created")
def post_created(sender: Any, instance: Post, created: bool, raw: bool = False, **kwargs: Any) -> None:
    if not created or raw:
        return
    services.on_post_created(instance)
    loop.gm_only_post(instance)


@receiver(defence_asked, dispatch_uid="rhythm-combat-defence-asked")
def defence_asked_in_combat(sender: Any, actor: Any, encounter: Any, target: Any, **kwargs: Any) -> None:
    """A player's character is attacked and chooses its defence: its controller is told (combat.signals)."""
    loop.reaction_needed(actor, encounter, target)


@receiver(character_signals.sheet_submitted, dispatch_uid="rhythm-sheet-submitted")
def sheet_submitted(sender: Any, actor: Any, character: Any, **kwargs: Any) -> None:
    loop.sheet_submitted(actor, character)


@receiver(character_signals.sheet_returned, dispatch_uid="rhythm-sheet-returned")
def sheet_returned(sender: Any, actor: Any, character: Any, **kwargs: Any) -> None:
    loop.sheet_returned(actor, character)


@receiver(character_signals.sheet_approved, dispatch_uid="rhythm-sheet-approved")
def sheet_approved(sender: Any, actor: Any, character: Any, **kwargs: Any) -> None:
    loop.sheet_approved(actor, character)


@receiver(character_signals.change_opened, dispatch_uid="rhythm-change-opened")
def change_opened(sender: Any, actor: Any, change: Any, **kwargs: Any) -> None:
    loop.change_opened(actor, change)


@receiver(character_signals.change_decided, dispatch_uid="rhythm-change-decided")
def change_decided(sender: Any, actor: Any, change: Any, **kwargs: Any) -> None:
    loop.change_decided(actor, change)


@receiver(progression_signals.awards_confirmed, dispatch_uid="rhythm-awards-confirmed")
def awards_confirmed(sender: Any, actor: Any, session: Any, characters: list[Any], **kwargs: Any) -> None:
    loop.awards_confirmed(actor, session, characters)
