"""Demo moderation data: open reports in the queue (seen by ``admin`` as
moderator and by ``mj`` as GM) and a suspended account ``spammeur`` (password
``tablee-demo``) to see the suspension notice. Idempotent."""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model

from campaigns.models import Campaign, Post
from moderation import services
from moderation.models import Report, active_suspension


def populate(context: dict[str, Any]) -> None:
    users = context["users"]
    admin, reporter = users["admin"], users["joueur"]
    campaign = Campaign.objects.filter(system="ambre").order_by("id").first() or Campaign.objects.first()
    if campaign is not None:
        posts = Post.objects.filter(campaign=campaign, hidden=False).order_by("id")
        post = posts.filter(author=users["joueuse"]).last() or posts.exclude(author=reporter).last()
        if post is not None and not Report.objects.filter(reporter=reporter, post=post).exists():
            services.report_target(
                reporter,
                post=post,
                reason="other",
                details="Ce message révèle la fin du scénario (signalement de démonstration).",
            )
        if not Report.objects.filter(reporter=users["joueuse"], kind=Report.Kind.CAMPAIGN).exists():
            services.report_target(
                users["joueuse"],
                campaign=campaign,
                reason="inappropriate",
                details="Le pitch mériterait un avertissement de contenu (démonstration).",
            )
    User = get_user_model()
    spammer, created = User.objects.get_or_create(
        username="spammeur", defaults={"email": "spammeur@demo.tablee.localhost"}
    )
    if created:
        spammer.set_password(context.get("password", "tablee-demo"))
        spammer.save()
    EmailAddress.objects.update_or_create(
        user=spammer, email=spammer.email, defaults={"verified": True, "primary": True}
    )
    if active_suspension(spammer) is None:
        services.suspend_user(
            admin, spammer, reason="Publicité répétée dans plusieurs campagnes (démonstration).", days=30
        )
    stdout = context.get("stdout")
    if stdout is not None:
        stdout.write("Moderation: reports in /moderation/, suspended account 'spammeur'.")
