"""``python manage.py createadmin``: the site's first administrator (production).

Interactive by default (username, e-mail, password asked). Non-interactive
with ``--no-input`` and ``TABLEE_ADMIN_USERNAME``, ``TABLEE_ADMIN_EMAIL``,
``TABLEE_ADMIN_PASSWORD``. The account is staff and superuser, its e-mail
address verified (sign-up verification is mandatory), and it has a profile.
Running it again for an existing username updates that account.
"""

from __future__ import annotations

import getpass
import os
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction


class Command(BaseCommand):
    help = "Create (or update) a site administrator: staff, superuser, verified e-mail."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--username", default=os.environ.get("TABLEE_ADMIN_USERNAME", ""))
        parser.add_argument("--email", default=os.environ.get("TABLEE_ADMIN_EMAIL", ""))
        parser.add_argument("--no-input", action="store_true", help="Read the password from TABLEE_ADMIN_PASSWORD.")

    def handle(self, *args: Any, **options: Any) -> None:
        interactive = not options["no_input"]
        username = options["username"] or (input("Username: ").strip() if interactive else "")
        email = options["email"] or (input("E-mail: ").strip() if interactive else "")
        password = os.environ.get("TABLEE_ADMIN_PASSWORD", "")
        if not password and interactive:
            password = getpass.getpass("Password: ")
            if getpass.getpass("Password (again): ") != password:
                raise CommandError("The passwords differ.")
        if not username or not email or not password:
            raise CommandError("Username, e-mail and password are required (TABLEE_ADMIN_* with --no-input).")
        User = get_user_model()
        user = User.objects.filter(username=username).first() or User(username=username)
        try:
            validate_password(password, user)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        from allauth.account.models import EmailAddress

        with transaction.atomic():
            user.email = email
            user.is_staff = user.is_superuser = user.is_active = True
            user.set_password(password)
            user.save()
            EmailAddress.objects.filter(user=user).exclude(email__iexact=email).update(primary=False)
            EmailAddress.objects.update_or_create(user=user, email=email, defaults={"verified": True, "primary": True})
        self.stdout.write(self.style.SUCCESS(f"Administrator {username} is ready."))
