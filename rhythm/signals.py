"""Connects the rhythm to the forum: each new post moves its scene's turn on."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_save
from django.dispatch import receiver

from campaigns.models import Post
from combat.signals import defence_asked
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
