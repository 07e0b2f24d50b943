"""Run the rhythm's periodic work: reminders before deadlines, e-mails after, deadline choices.

Celery beat runs ``rhythm.tasks.tick`` every ``TABLEE_RHYTHM_INTERVAL`` seconds
when Redis is configured; on embedded defaults ``./tablee serve`` runs this
command with ``--loop`` beside the web server. Idempotent: run it as often as
you like.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand
from django.db import close_old_connections

from rhythm.services import run_reminders


class Command(BaseCommand):
    help = "Send scene reminders and apply passed deadlines (idempotent)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--loop", type=int, default=0, help="repeat every N seconds (0: once)")

    def handle(self, *args: Any, loop: int = 0, **options: Any) -> None:
        while True:
            counts = run_reminders()
            if options.get("verbosity", 1) > 1 or not loop:
                self.stdout.write(
                    f"reminders in-app {counts['app']}, e-mails {counts['email']}, deadlines {counts['deadline']}"
                )
            if not loop:
                return
            close_old_connections()  # hold no connection while sleeping
            time.sleep(loop)
