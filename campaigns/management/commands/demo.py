"""``python manage.py demo``: create (or refresh) the demo site.

Idempotent: running it twice leaves one copy of everything. Each app may
add its own demo data with a ``demo.py`` module exposing
``populate(context: dict) -> None``; they run in ``DEMO_APPS`` order with a
shared context holding the demo users and campaigns.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.contrib.sites.models import Site
from django.core.management.base import BaseCommand
from django.db import transaction

DEMO_PASSWORD = "tablee-demo"
DEMO_USERS = [
    # username, display name, is_staff/superuser, language
    ("admin", "Admin", True, "fr"),
    ("mj", "Morgane (MJ)", False, "fr"),
    ("joueuse", "Iris", False, "fr"),
    ("joueur", "Hugo", False, "en"),
]
DEMO_APPS = ["campaigns", "characters", "combat", "progression", "moderation"]


class Command(BaseCommand):
    help = "Create the demo site: accounts admin, mj, joueuse, joueur (password: tablee-demo) and demo tables."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--allow-production",
            action="store_true",
            help="Load the demo accounts even with DJANGO_DEBUG=0 (never on a real site).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        from django.conf import settings
        from django.core.management.base import CommandError

        if settings.TABLEE_PRODUCTION and not options.get("allow_production"):
            raise CommandError(
                "DJANGO_DEBUG=0: the demo (accounts with a public password) is never loaded in production. "
                "Use ./tablee createadmin for your own administrator."
            )
        with transaction.atomic():
            Site.objects.update_or_create(
                pk=settings.SITE_ID, defaults={"domain": settings.SITE_DOMAIN, "name": settings.SITE_NAME}
            )
            users = {name: self._user(name, display, staff, lang) for name, display, staff, lang in DEMO_USERS}
            context: dict[str, Any] = {"users": users, "password": DEMO_PASSWORD, "stdout": self.stdout}
            for app in DEMO_APPS:
                try:
                    module = import_module(f"{app}.demo")
                except ModuleNotFoundError as exc:
                    if exc.name != f"{app}.demo" and exc.name != app:
                        raise
                    continue
                module.populate(context)
        self.stdout.write(
            self.style.SUCCESS("Demo ready: log in as admin, mj, joueuse or joueur with the password " + DEMO_PASSWORD)
        )

    def _user(self, username: str, display: str, staff: bool, language: str) -> Any:
        User = get_user_model()
        user, created = User.objects.get_or_create(
            username=username, defaults={"email": f"{username}@demo.tablee.localhost"}
        )
        if created:
            user.set_password(DEMO_PASSWORD)
        user.is_staff = staff
        user.is_superuser = staff
        user.save()
        EmailAddress.objects.update_or_create(user=user, email=user.email, defaults={"verified": True, "primary": True})
        profile = user.profile
        profile.display_name = display
        profile.language = language
        profile.save()
        return user
