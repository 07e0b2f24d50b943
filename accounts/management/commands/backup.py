"""``python manage.py backup [DIR]``: the database and the media directory, in one folder.

Writes ``DIR/tablee-<UTC time>/`` (``DIR`` defaults to ``TABLEE_BACKUP_DIR``
or ``./backups``) holding:

* ``database.dump``: ``pg_dump --format=custom`` of the PostgreSQL database
  (or ``database.sqlite3``, a consistent copy, on the embedded default);
* ``media.tar.gz``: every uploaded file (``TABLEE_MEDIA_ROOT``);
* ``data.tar.gz``: the instance's private data (``TABLEE_DATA_DIR``: the dice signing key);
* ``manifest.json``: when, which database engine, and the row count of every table
  (``restore`` checks them).

Prints the folder's path (last line), so scripts can keep it.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection


def pg_env(db: dict[str, Any]) -> dict[str, str]:
    """libpq's environment for the Django database settings (no password on a command line)."""
    env = {**os.environ, "PGDATABASE": str(db["NAME"])}
    for key, var in (("HOST", "PGHOST"), ("PORT", "PGPORT"), ("USER", "PGUSER"), ("PASSWORD", "PGPASSWORD")):
        if db.get(key):
            env[var] = str(db[key])
    return env


def archive_dir(directory: Path, archive_path: Path) -> None:
    """A gzipped tar of the directory's content (empty if it does not exist)."""
    with tarfile.open(archive_path, "w:gz") as archive:
        if directory.is_dir():
            for child in sorted(directory.iterdir()):
                archive.add(child, arcname=child.name)


def row_counts() -> dict[str, int]:
    counts: dict[str, int] = {}
    with connection.cursor() as cursor:
        for table in sorted(connection.introspection.table_names(cursor)):
            cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")
            counts[table] = int(cursor.fetchone()[0])
    return counts


class Command(BaseCommand):
    help = "Back up the database (pg_dump) and the media directory into one folder."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("directory", nargs="?", default=os.environ.get("TABLEE_BACKUP_DIR", "backups"))

    def handle(self, *args: Any, **options: Any) -> None:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        target = Path(options["directory"]).resolve() / f"tablee-{stamp}"
        target.mkdir(parents=True, exist_ok=False)
        db = settings.DATABASES["default"]
        if connection.vendor == "postgresql":
            if shutil.which("pg_dump") is None:
                raise CommandError("pg_dump is missing (apt-get install postgresql-client).")
            subprocess.run(
                ["pg_dump", "--format=custom", "--no-owner", "--no-privileges", f"--file={target / 'database.dump'}"],
                env=pg_env(db),
                check=True,
            )
        elif connection.vendor == "sqlite":
            source = sqlite3.connect(str(db["NAME"]))
            dest = sqlite3.connect(str(target / "database.sqlite3"))
            with dest:
                source.backup(dest)
            source.close()
            dest.close()
        else:
            raise CommandError(f"No backup for the {connection.vendor} database engine.")
        media = Path(settings.MEDIA_ROOT)
        archive_dir(media, target / "media.tar.gz")
        archive_dir(Path(getattr(settings, "TABLEE_DATA_DIR", settings.BASE_DIR / "data")), target / "data.tar.gz")
        manifest = {"created": stamp, "engine": connection.vendor, "tables": row_counts()}
        (target / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
        total = sum(manifest["tables"].values())
        self.stderr.write(f"Backed up {len(manifest['tables'])} tables ({total} rows) and {media}.")
        self.stdout.write(str(target))
