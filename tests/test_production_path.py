"""The self-hoster's path, for real: what README.md "Self-hosting" tells, run as written.

A virtual environment built from ``requirements.txt`` ONLY (cached under
``TABLEE_PROD_VENV``, default ``.ci/cache/venv-prod``, rebuilt when
``requirements.txt`` changes), ``DJANGO_DEBUG=0``, a fresh PostgreSQL
database, Redis, and the ``./tablee`` production commands: ``migrate``,
``collectstatic``, ``createadmin``, ``web`` and ``worker`` as subprocesses.
Over real HTTP (as the reverse proxy would forward it): pages, static files,
the site's 404, the health check, a login, an uploaded portrait served back;
a session job run by the worker; then ``backup`` and ``restore`` into another
fresh database with identical row counts and the media back.

Marked ``services``: needs ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL``; CI sets them.
"""

from __future__ import annotations

import hashlib
import http.client
import http.cookies
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
HOST = "tablee.test"

pytestmark = [
    pytest.mark.services,
    pytest.mark.skipif(
        not (os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres")),
        reason="needs REDIS_URL and a PostgreSQL DATABASE_URL",
    ),
    pytest.mark.skipif(shutil.which("pg_dump") is None, reason="needs pg_dump (postgresql-client)"),
]

SEED = r"""
import json
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.utils import timezone
from campaigns.models import Board, Campaign, Membership, PlaySession, Role
from characters import ledger
from characters.models import Character
import rules

User = get_user_model()
gm = User.objects.get(username="chef")
player = User.objects.create_user("iris", "iris@example.org", "Iris-passe-2026")
EmailAddress.objects.create(user=player, email=player.email, verified=True, primary=True)
campaign = Campaign.objects.create(title="Table de prod", slug="table-de-prod", system="ambre", created_by=gm)
Membership.objects.create(campaign=campaign, user=gm, role=Role.GM)
Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
Board.objects.create(campaign=campaign, name="En jeu", kind=Board.Kind.IN_CHARACTER, position=0)
system = rules.get_system("ambre")
cast = []
for n in range(3):
    c = Character.objects.create(campaign=campaign, owner=player, name=f"PJ {n}", system="ambre",
        sheet=system.default_sheet(), schema_version=system.schema_version, status=Character.Status.APPROVED)
    ledger.append_entry(c, "karma", 30 + n, "creation_budget")
    cast.append(c.pk)
session = PlaySession.objects.create(campaign=campaign, number=1, title="Séance 1",
    status=PlaySession.Status.CLOSED, closed_at=timezone.now(), opened_by=gm)
print("SEED " + json.dumps({"cast": cast, "session": session.pk, "campaign": campaign.pk}))
"""

CONFIRM = r"""
import json, sys
from django.contrib.auth import get_user_model
from campaigns.models import PlaySession
from progression import services
data = json.loads(sys.stdin.read())
gm = get_user_model().objects.get(username="chef")
session = PlaySession.objects.get(pk=data["session"])
entries = {pk: {"present": True, "facts": {}, "amounts": {}, "suggested": {}, "extra": 4 + n}
           for n, pk in enumerate(data["cast"])}
run = services.confirm_session_awards(gm, session, entries=entries)  # commits, then sends to the worker
print("RUN " + str(run.pk))
"""

BALANCES = r"""
import json
from progression.models import CharacterBalance, RecalculationRun
print("STATE " + json.dumps({
    "runs": list(RecalculationRun.objects.order_by("pk").values_list("status", flat=True)),
    "balances": sorted((b.character.name, b.balances) for b in CharacterBalance.objects.select_related("character")),
}))
"""


# ---------------------------------------------------------------------------
# The venv from requirements.txt only, cached
# ---------------------------------------------------------------------------
def production_venv() -> Path:
    venv = Path(os.environ.get("TABLEE_PROD_VENV") or ROOT / ".ci/cache/venv-prod")
    digest = hashlib.sha256((ROOT / "requirements.txt").read_bytes()).hexdigest()
    stamp = venv / ".requirements.sha256"
    if stamp.exists() and stamp.read_text() == digest and (venv / "bin/python").exists():
        return venv
    shutil.rmtree(venv, ignore_errors=True)
    base = getattr(sys, "_base_executable", None) or shutil.which("python3") or sys.executable
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin/pip"), "install", "--quiet", "-r", str(ROOT / "requirements.txt")], check=True, timeout=900
    )
    stamp.write_text(digest)
    return venv


# ---------------------------------------------------------------------------
# Databases of this test (created and dropped here)
# ---------------------------------------------------------------------------
def _admin_conninfo() -> str:
    url = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(("postgresql", url.netloc, "/postgres", "", ""))


def _database_url(name: str) -> str:
    url = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit((url.scheme, url.netloc, f"/{name}", "", ""))


def _sql(statement: str, database: str | None = None) -> list[tuple[Any, ...]]:
    import psycopg

    conninfo = (
        _admin_conninfo() if database is None else _database_url(database).replace("postgres://", "postgresql://")
    )
    with psycopg.connect(conninfo, autocommit=True) as conn, conn.cursor() as cursor:
        cursor.execute(statement)
        return cursor.fetchall() if cursor.description else []


def _row_counts(database: str) -> dict[str, int]:
    tables = [t for (t,) in _sql("SELECT tablename FROM pg_tables WHERE schemaname = 'public'", database)]
    return {t: _sql(f'SELECT count(*) FROM "{t}"', database)[0][0] for t in sorted(tables)}


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[dict[str, Any]]:
    tag = uuid.uuid4().hex[:8]
    names = [f"tablee_prodpath_{tag}", f"tablee_prodpath_{tag}_restored"]
    for name in names:
        _sql(f'CREATE DATABASE "{name}"')
    processes: list[subprocess.Popen[bytes]] = []
    state = {"tag": tag, "names": names, "tmp": tmp_path, "processes": processes}
    try:
        yield state
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=5)
        for name in names:
            _sql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                f"WHERE datname = '{name}' AND pid <> pg_backend_pid()"
            )
            _sql(f'DROP DATABASE IF EXISTS "{name}"')


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------
# HTTP as the reverse proxy forwards it (Host of the site, X-Forwarded-Proto: https)
# ---------------------------------------------------------------------------
class Browser:
    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.cookies: dict[str, str] = {}

    def request(
        self, path: str, *, data: bytes | None = None, headers: dict[str, str] | None = None, proxy: bool = True
    ) -> tuple[int, http.client.HTTPMessage, bytes]:
        all_headers = {"Host": HOST, "X-Forwarded-Proto": "https", "Accept-Language": "fr"} if proxy else {}
        all_headers.update(headers or {})
        if self.cookies:
            all_headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if data is not None:
            all_headers["Referer"] = f"https://{HOST}{path}"
        req = urllib.request.Request(self.base + path, data=data, headers=all_headers)
        opener = urllib.request.build_opener(NoRedirect)
        try:
            with opener.open(req, timeout=30) as response:
                status, head, body = response.status, response.headers, response.read()  # case-insensitive
                raw = response.headers.get_all("Set-Cookie") or []
        except urllib.error.HTTPError as error:
            status, head, body = error.code, error.headers, error.read()
            raw = error.headers.get_all("Set-Cookie") or []
        for line in raw:
            cookie = http.cookies.SimpleCookie(line)
            for key, morsel in cookie.items():
                self.cookies[key] = morsel.value
        return status, head, body

    def get(self, path: str, **kw: Any) -> tuple[int, http.client.HTTPMessage, bytes]:
        return self.request(path, **kw)

    def post(self, path: str, fields: dict[str, str]) -> tuple[int, http.client.HTTPMessage, bytes]:
        fields = {"csrfmiddlewaretoken": self.cookies.get("csrftoken", ""), **fields}
        body = urlencode(fields).encode()
        return self.request(path, data=body, headers={"Content-Type": "application/x-www-form-urlencoded"})

    def upload(
        self, path: str, field: str, filename: str, content: bytes
    ) -> tuple[int, http.client.HTTPMessage, bytes]:
        boundary = uuid.uuid4().hex
        parts = [
            f'--{boundary}\r\nContent-Disposition: form-data; name="csrfmiddlewaretoken"\r\n\r\n'
            f"{self.cookies.get('csrftoken', '')}\r\n".encode(),
            f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'
            "Content-Type: image/png\r\n\r\n".encode()
            + content
            + b"\r\n",
            f"--{boundary}--\r\n".encode(),
        ]
        return self.request(
            path, data=b"".join(parts), headers={"Content-Type": f"multipart/form-data; boundary={boundary}"}
        )


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (64, 48), (122, 46, 31)).save(out, format="PNG")
    return out.getvalue()


# ---------------------------------------------------------------------------
# The test
# ---------------------------------------------------------------------------
def test_the_production_path_as_the_readme_tells_it(stack: dict[str, Any]) -> None:
    started = time.monotonic()
    venv = production_venv()
    tmp: Path = stack["tmp"]
    tag = stack["tag"]
    port = _free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "TABLEE_", "CELERY_", "PYTEST", "VIRTUAL_ENV")) and key != "PYTHONPATH"
    }
    env.update(
        {
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "production-path-test-" + uuid.uuid4().hex,
            "DJANGO_ALLOWED_HOSTS": HOST,
            "DJANGO_CSRF_TRUSTED_ORIGINS": f"https://{HOST}",
            "TABLEE_SITE_URL": f"https://{HOST}",
            "DATABASE_URL": _database_url(stack["names"][0]),
            "REDIS_URL": os.environ["REDIS_URL"],
            "TABLEE_VENV": str(venv),
            "TABLEE_PORT": str(port),
            "TABLEE_WEB_WORKERS": "1",
            "TABLEE_STATIC_ROOT": str(tmp / "static"),
            "TABLEE_MEDIA_ROOT": str(tmp / "media"),
            "TABLEE_DATA_DIR": str(tmp / "data"),
            "TABLEE_PROGRESSION_QUEUE": f"prodpath-{tag}",
            "TABLEE_CACHE_PREFIX": f"prodpath-{tag}",
            "TABLEE_LIVE_PREFIX": f"prodpath-{tag}:live:",
            "TABLEE_ADMIN_USERNAME": "chef",
            "TABLEE_ADMIN_EMAIL": "chef@example.org",
            "TABLEE_ADMIN_PASSWORD": "Chef-de-table-2026",
            "TABLEE_LOG_LEVEL": "WARNING",
        }
    )
    # The installed packages are exactly requirements.txt's (no test tool leaked in).
    frozen = subprocess.run([str(venv / "bin/pip"), "freeze"], capture_output=True, text=True, check=True).stdout
    assert "pytest" not in frozen.lower() and re.search(r"^kombu==", frozen, re.MULTILINE)

    def tablee(*args: str, extra: dict[str, str] | None = None, stdin: str | None = None) -> str:
        result = subprocess.run(
            [str(ROOT / "tablee"), *args],
            cwd=ROOT,
            env={**env, **(extra or {})},
            input=stdin,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, f"./tablee {' '.join(args)}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        return result.stdout

    def shell(code: str, stdin: str | None = None) -> str:
        result = subprocess.run(
            [str(venv / "bin/python"), "manage.py", "shell", "-c", code],
            cwd=ROOT,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr[-3000:]
        return result.stdout

    def line(output: str, prefix: str) -> str:
        return next(x for x in output.splitlines() if x.startswith(prefix))[len(prefix) :]

    # The demo refuses production; the production commands set the site up.
    demo = subprocess.run([str(ROOT / "tablee"), "serve"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert demo.returncode == 2 and "demo" in demo.stderr
    tablee("migrate")
    tablee("collectstatic")
    tablee("createadmin", "--no-input")
    assert _sql("SELECT username FROM auth_user", stack["names"][0]) == [("chef",)]  # no demo account
    ids = json.loads(line(shell(SEED), "SEED "))

    logs = {name: (tmp / f"{name}.log").open("wb") for name in ("web", "worker")}
    for name, args in (("web", ["web"]), ("worker", ["worker", "-Q", env["TABLEE_PROGRESSION_QUEUE"], "-P", "solo"])):
        stack["processes"].append(
            subprocess.Popen(
                [str(ROOT / "tablee"), *args],
                cwd=ROOT,
                env=env,
                stdout=logs[name],
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )

    def logs_text() -> str:
        return "\n".join(f"--- {n}\n{(tmp / f'{n}.log').read_text()[-3000:]}" for n in logs)

    browser = Browser(port)
    deadline = time.monotonic() + 60
    while True:
        try:
            status, _h, body = browser.get("/healthz", proxy=False)  # as docker-compose's probe: plain, internal host
            if status == 200:
                break
        except OSError:
            pass
        assert time.monotonic() < deadline, logs_text()
        time.sleep(0.3)
    assert json.loads(body) == {"status": "ok"}

    # Pages and static files, with DEBUG off.
    status, _h, home = browser.get("/")
    assert status == 200, home[:500]
    css = re.search(rb'href="(/static/css/tablee\.[0-9a-f]{12}\.css)"', home)
    assert css, "hashed static names (collectstatic's manifest)"
    status, head, _body = browser.get(css.group(1).decode(), headers={"Accept-Encoding": "gzip"})
    assert status == 200 and head.get("Content-Type", "").startswith("text/css")
    assert head.get("Content-Encoding") == "gzip"
    status, _h, missing = browser.get("/nulle-part/")
    assert status == 404 and b"Page introuvable" in missing and b'class="site-header"' in missing
    status, head, _b = browser.get("/", proxy=False, headers={"Host": HOST})
    assert status == 301 and head["Location"].startswith("https://")

    # Log in (allauth form), upload a portrait, get it back through the checked view (no public /media/).
    browser.get("/accounts/login/")
    status, head, _b = browser.post("/accounts/login/", {"login": "iris", "password": "Iris-passe-2026"})
    assert status == 302, _b[:800]
    character = ids["cast"][0]
    browser.get(f"/characters/{character}/")
    status, _h, _b = browser.upload(f"/characters/{character}/portrait/", "portrait", "moi.png", _png())
    assert status == 302
    status, _h, page = browser.get(f"/characters/{character}/")
    src = re.search(rb'<img src="(/characters/media/portraits/[^"]+)"', page)
    assert src, page[:2000]
    status, head, image = browser.get(src.group(1).decode())
    assert status == 200 and image[:2] == b"\xff\xd8"  # the re-encoded JPEG

    # A session job through Redis and the worker subprocess.
    run = int(line(shell(CONFIRM, stdin=json.dumps(ids)), "RUN "))
    database = stack["names"][0]
    deadline = time.monotonic() + 90
    while True:
        (status_,) = _sql(f"SELECT status FROM progression_recalculationrun WHERE id = {run}", database)[0]
        if status_ in ("done", "failed"):
            break
        assert time.monotonic() < deadline, f"run {run}: {status_}\n{logs_text()}"
        time.sleep(0.3)
    assert status_ == "done", logs_text()
    state = json.loads(line(shell(BALANCES), "STATE "))
    assert state["balances"] == [["PJ 0", {"karma": 34}], ["PJ 1", {"karma": 36}], ["PJ 2", {"karma": 38}]]
    assert "progression.recalculate_session" in (tmp / "worker.log").read_text()  # the worker ran it

    # Backup, then restore into a fresh database and media directory: identical rows, the portrait back.
    folder = Path(tablee("backup", str(tmp / "backups")).strip().splitlines()[-1])
    assert {p.name for p in folder.iterdir()} == {"database.dump", "media.tar.gz", "data.tar.gz", "manifest.json"}
    restored_media = tmp / "media-restored"
    tablee(
        "restore",
        str(folder),
        extra={
            "DATABASE_URL": _database_url(stack["names"][1]),
            "TABLEE_MEDIA_ROOT": str(restored_media),
            "TABLEE_DATA_DIR": str(tmp / "data-restored"),
        },
    )
    before, after = _row_counts(stack["names"][0]), _row_counts(stack["names"][1])
    assert after == before and before["characters_character"] == 3 and before["progression_characterbalance"] == 3
    portrait = src.group(1).decode().removeprefix("/characters/media/")
    assert (restored_media / portrait).read_bytes() == (tmp / "media" / portrait).read_bytes()
    # Restoring over a database that has tables is refused without --force.
    refused = subprocess.run(
        [str(ROOT / "tablee"), "restore", str(folder)], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert refused.returncode != 0 and "already has tables" in refused.stderr
    assert time.monotonic() - started < 300
