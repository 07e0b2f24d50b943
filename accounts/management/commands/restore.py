"""``python manage.py restore DIR``: put a ``backup`` folder back into the configured database and media.

Meant for an empty database (a fresh ``createdb``): ``--force`` replaces
the objects of a database that already has tables. PostgreSQL:
``pg_restore --no-owner``; SQLite: the file is copied in place. The media
archive is extracted into ``TABLEE_MEDIA_ROOT``, the private data (signing key) into
``TABLEE_DATA_DIR``. Then every table's row
count is compared with the backup's manifest; any difference exits 1.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from accounts.management.commands.backup import pg_env, row_counts


class Command(BaseCommand):
    help = "Restore a backup folder (database and media) and check every table's row count."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("directory")
        parser.add_argument("--force", action="store_true", help="Replace a database that already has tables.")

    def handle(self, *args: Any, **options: Any) -> None:
        source = Path(options["directory"])
        manifest_path = source / "manifest.json"
        if not manifest_path.is_file():
            raise CommandError(f"{source} is not a backup folder (no manifest.json).")
        manifest = json.loads(manifest_path.read_text())
        with connection.cursor() as cursor:
            existing = connection.introspection.table_names(cursor)
        if existing and not options["force"]:
            raise CommandError("The database already has tables: restore into an empty one, or pass --force.")
        db = settings.DATABASES["default"]
        if manifest["engine"] != connection.vendor:
            raise CommandError(f"The backup is of a {manifest['engine']} database, this one is {connection.vendor}.")
        if connection.vendor == "postgresql":
            connection.close()
            command = ["pg_restore", "--no-owner", "--no-privileges", "--exit-on-error", f"--dbname={db['NAME']}"]
            if existing:
                command += ["--clean", "--if-exists"]
            subprocess.run([*command, str(source / "database.dump")], env=pg_env(db), check=True)
        else:
            connection.close()
            shutil.copyfile(source / "database.sqlite3", str(db["NAME"]))
        media = Path(settings.MEDIA_ROOT)
        media.mkdir(parents=True, exist_ok=True)
        with tarfile.open(source / "media.tar.gz", "r:gz") as archive:
            archive.extractall(media, filter="data")
        if (source / "data.tar.gz").is_file():
            data_dir = Path(getattr(settings, "TABLEE_DATA_DIR", settings.BASE_DIR / "data"))
            data_dir.mkdir(parents=True, exist_ok=True)
            with tarfile.open(source / "data.tar.gz", "r:gz") as archive:
                archive.extractall(data_dir, filter="data")
        counts = row_counts()
        diff = {t: (n, counts.get(t)) for t, n in manifest["tables"].items() if counts.get(t) != n}
        if diff:
            raise CommandError(f"Row counts differ after the restore (backup, now): {diff}")
        self.stdout.write(
            self.style.SUCCESS(
                f"Restored {len(counts)} tables ({sum(counts.values())} rows) and the media into {media}."
            )
        )
