"""``python manage.py wait_for_migrations``: block until the database is reachable and migrated.

The worker and beat run it first (``./tablee worker``, ``./tablee beat``,
docker-compose): they never start on a database the migrate step has not
finished. Exits 1 after ``--timeout`` seconds (``TABLEE_WAIT_MIGRATIONS``, 300).
"""

from __future__ import annotations

import os
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor


def pending_migrations(alias: str = DEFAULT_DB_ALIAS) -> list[str]:
    connection = connections[alias]
    connection.ensure_connection()
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return [f"{migration.app_label}.{migration.name}" for migration, _backwards in plan]


class Command(BaseCommand):
    help = "Wait until the database is reachable and every migration is applied."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--timeout", type=float, default=float(os.environ.get("TABLEE_WAIT_MIGRATIONS", "300")))
        parser.add_argument("--interval", type=float, default=2.0)

    def handle(self, *args: Any, **options: Any) -> None:
        deadline = time.monotonic() + options["timeout"]
        said = ""
        while True:
            try:
                pending = pending_migrations()
                state = f"{len(pending)} migration(s) pending" if pending else ""
            except Exception as exc:  # the database is not up yet
                state = f"database unavailable ({type(exc).__name__})"
                connections.close_all()
            if not state:
                self.stdout.write("Database migrated.")
                return
            if state != said:
                self.stdout.write(f"Waiting: {state}")
                said = state
            if time.monotonic() > deadline:
                raise CommandError(f"Gave up waiting: {state}")
            time.sleep(options["interval"])
