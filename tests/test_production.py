"""The self-hoster's path, in-process: error pages, health check, demo kept out,
admin creation, migrations wait, the compose file, the README's variables, ``.ci/run``.

The full path with real services (a venv from requirements.txt only,
DJANGO_DEBUG=0, PostgreSQL, Redis, a worker, backup and restore) is
``tests/test_production_path.py``.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.core.management import call_command
from django.core.management.base import CommandError
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import path

import config.urls

ROOT = Path(__file__).resolve().parents[1]


def _boom(request: HttpRequest) -> Any:
    raise RuntimeError("boom")


def _refused(request: HttpRequest) -> Any:
    raise PermissionDenied


def _database_away(request: HttpRequest) -> Any:
    from django.db import OperationalError

    raise OperationalError("connection to server at 127.0.0.1 failed: Connection refused")


def _deadlock(request: HttpRequest) -> Any:
    import psycopg.errors
    from django.db import OperationalError

    try:
        raise psycopg.errors.DeadlockDetected("deadlock detected (process 12 waits for ShareLock)")
    except psycopg.errors.DeadlockDetected as exc:
        raise OperationalError("deadlock detected") from exc


def _locked_row(request: HttpRequest) -> Any:
    """Waits at most 50 ms for a row lock (held by the test): PostgreSQL cancels the statement."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '50ms'")
        get_user_model().objects.select_for_update().get(username=request.GET["u"])
    return HttpResponse("not reached")


urlpatterns = [
    path("deadlock/", _deadlock),
    path("api/v1/deadlock/", _deadlock),
    path("locked/", _locked_row),
    path("boom/", _boom),
    path("refused/", _refused),
    path("away/", _database_away),
    path("api/v1/away/", _database_away),
    *config.urls.urlpatterns,
]
handler403 = config.urls.handler403
handler404 = config.urls.handler404
handler500 = config.urls.handler500


@pytest.fixture
def production(settings: Any) -> Any:
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["tablee.example.org"]
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.ROOT_URLCONF = __name__
    return settings


def _get(client: Client, url: str, lang: str | None = None) -> Any:
    headers = {"HTTP_HOST": "tablee.example.org", "HTTP_X_FORWARDED_PROTO": "https"}
    if lang:
        headers["HTTP_ACCEPT_LANGUAGE"] = lang
    return client.get(url, **headers)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lang", "title", "text"),
    [
        ("fr", "Page introuvable", "existe pas, ou vous"),
        ("en", "Page not found", "This page does not exist"),
    ],
)
def test_the_404_page_is_the_site_s_in_the_reader_s_language(production: Any, lang: str, title: str, text: str) -> None:
    response = _get(Client(), "/campaigns/no-such-table/nothing/", lang)
    body = response.content.decode()
    assert response.status_code == 404
    assert title in body and text in body
    assert 'class="site-header"' in body and "Not Found</h1>" not in body
    assert f'<html lang="{lang}">' in body


@pytest.mark.django_db
def test_the_403_page_is_the_site_s(production: Any) -> None:
    fr = _get(Client(), "/refused/").content.decode()
    en = _get(Client(), "/refused/", "en").content.decode()
    assert "Accès refusé" in fr and "Access refused" in en and 'class="site-header"' in fr


@pytest.mark.parametrize(("lang", "title"), [("fr", "Une erreur est survenue"), ("en", "Something went wrong")])
def test_the_500_page_needs_no_database(production: Any, lang: str, title: str, django_assert_num_queries: Any) -> None:
    # No django_db mark: any query raises. The page is rendered from the template alone.
    client = Client(raise_request_exception=False)
    response = _get(client, "/boom/", lang)
    body = response.content.decode()
    assert response.status_code == 500
    assert title in body and f'<html lang="{lang}">' in body and "Tablée" in body
    assert "Server Error (500)" not in body and "boom" not in body


@pytest.mark.parametrize(
    ("lang", "title", "retry"),
    [("fr", "De retour dans un instant", "Réessayez dans 15 secondes."), ("en", "Back in a moment", "15 seconds")],
)
def test_while_the_database_is_away_pages_say_503_and_when_to_retry(
    production: Any, lang: str, title: str, retry: str
) -> None:
    client = Client(raise_request_exception=False)
    response = _get(client, "/away/?page=2", lang)
    body = response.content.decode()
    assert response.status_code == 503 and response["Retry-After"] == "15"
    assert title in body and retry in body and f'<html lang="{lang}">' in body
    assert 'href="/away/?page=2"' in body  # "try again" reloads the page
    assert "Connection refused" not in body and "127.0.0.1" not in body
    api = client.get("/api/v1/away/", HTTP_HOST="tablee.example.org", HTTP_X_FORWARDED_PROTO="https")
    assert api.status_code == 503 and api["Retry-After"] == "15" and api.json()["code"] == "unavailable"
    # A bug is still a 500.
    assert _get(client, "/boom/", lang).status_code == 500


@pytest.mark.parametrize(
    ("lang", "text", "retry"),
    [
        ("fr", "trop occupée pour terminer votre demande", "Réessayez dans 5 secondes."),
        ("en", "too busy to finish your request", "Try again in 5 seconds."),
    ],
)
def test_a_deadlock_is_a_503_that_says_busy_not_away(production: Any, lang: str, text: str, retry: str) -> None:
    client = Client(raise_request_exception=False)
    response = _get(client, "/deadlock/?page=3", lang)
    body = response.content.decode()
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert text in body and retry in body and 'href="/deadlock/?page=3"' in body
    assert "ShareLock" not in body and "database right now" not in body and "joint pas sa base" not in body
    api = client.get("/api/v1/deadlock/", HTTP_HOST="tablee.example.org", HTTP_X_FORWARDED_PROTO="https")
    assert api.status_code == 503 and api["Retry-After"] == "5"
    assert api.json()["code"] == "unavailable" and "trop occupé" in api.json()["detail"]  # French by default


@pytest.mark.django_db(transaction=True)
def test_a_lock_held_too_long_on_postgresql_is_the_busy_503(production: Any, django_user_model: Any) -> None:
    """A real lock timeout: another connection holds the row; the request's statement is cancelled
    (SQLSTATE 55P03) and the reader gets the "busy" page, not a 500 nor the "away" page."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's lock_timeout")
    import psycopg

    django_user_model.objects.create_user("held", password="x")
    settings_dict = connection.settings_dict
    holder = psycopg.connect(
        dbname=settings_dict["NAME"],
        user=settings_dict["USER"],
        host=settings_dict["HOST"] or None,
        port=settings_dict["PORT"] or None,
        password=settings_dict["PASSWORD"] or None,
    )
    try:
        holder.execute(f"SELECT 1 FROM {django_user_model._meta.db_table} WHERE username = %s FOR UPDATE", ["held"])
        response = _get(Client(raise_request_exception=False), "/locked/?u=held", "en")
    finally:
        holder.rollback()
        holder.close()
    assert response.status_code == 503, response.status_code
    assert response["Retry-After"] == "5" and "too busy to finish your request" in response.content.decode()


@pytest.mark.django_db
def test_a_member_s_page_during_a_database_outage_is_a_503(production: Any, monkeypatch: Any, table: Any) -> None:
    """The outage hits the middleware (the session, the member) before any view."""
    from django.db import OperationalError
    from django.db.backends.base.base import BaseDatabaseWrapper

    client = Client(raise_request_exception=False)
    client.force_login(table.player)

    def refused(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise OperationalError("connection refused")

    monkeypatch.setattr(BaseDatabaseWrapper, "ensure_connection", refused)
    from django.db import connections

    for conn in connections.all():
        monkeypatch.setattr(conn, "connection", None, raising=False)
    response = _get(client, f"/campaigns/{table.campaign.pk}/")
    assert response.status_code == 503, response.status_code
    assert "Tablée" in response.content.decode()


def test_the_health_check_answers_the_internal_address(production: Any, db: Any) -> None:
    # As written in docker-compose.yml: plain HTTP, Host 127.0.0.1:8000 (not an allowed host).
    response = Client().get("/healthz", HTTP_HOST="127.0.0.1:8000")
    assert response.status_code == 200 and response.json() == {"status": "ok"}
    # Everything else still redirects to HTTPS and refuses unknown hosts.
    assert Client().get("/", HTTP_HOST="tablee.example.org").status_code == 301
    assert Client().get("/", HTTP_HOST="127.0.0.1:8000", HTTP_X_FORWARDED_PROTO="https").status_code == 400


def test_the_health_check_says_503_when_the_database_is_away(production: Any, monkeypatch: Any) -> None:
    from django.db import OperationalError, connection

    def down(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("connection refused")

    monkeypatch.setattr(connection, "cursor", down)
    response = Client().get("/healthz", HTTP_HOST="127.0.0.1:8000")
    assert response.status_code == 503 and response.json()["database"] == "down"


@pytest.mark.django_db
def test_the_demo_is_never_loaded_in_production(settings: Any) -> None:
    from django.contrib.auth import get_user_model

    settings.TABLEE_PRODUCTION = True  # DJANGO_DEBUG=0
    with pytest.raises(CommandError, match="never loaded in production"):
        call_command("demo", stdout=io.StringIO())
    assert not get_user_model().objects.filter(username__in=["admin", "mj", "joueuse", "joueur"]).exists()


@pytest.mark.django_db
def test_createadmin_makes_a_verified_administrator(monkeypatch: Any, settings: Any) -> None:
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    monkeypatch.setenv("TABLEE_ADMIN_PASSWORD", "short")
    with pytest.raises(CommandError):  # the password validators apply
        call_command("createadmin", "--no-input", "--username", "chef", "--email", "chef@example.org")
    assert not get_user_model().objects.filter(username="chef").exists()
    monkeypatch.setenv("TABLEE_ADMIN_PASSWORD", "a-long-Admin-pass-2026")
    call_command("createadmin", "--no-input", "--username", "chef", "--email", "chef@example.org", stdout=io.StringIO())
    user = get_user_model().objects.get(username="chef")
    assert user.is_staff and user.is_superuser and user.check_password("a-long-Admin-pass-2026")
    assert EmailAddress.objects.get(user=user).verified


@pytest.mark.django_db
def test_wait_for_migrations_returns_on_a_migrated_database_and_gives_up_otherwise(monkeypatch: Any) -> None:
    from accounts.management.commands import wait_for_migrations

    out = io.StringIO()
    call_command("wait_for_migrations", "--timeout", "1", stdout=out)
    assert "migrated" in out.getvalue()
    monkeypatch.setattr(wait_for_migrations, "pending_migrations", lambda alias="default": ["progression.9999_x"])
    with pytest.raises(CommandError, match="1 migration"):
        call_command("wait_for_migrations", "--timeout", "0.2", "--interval", "0.1", stdout=io.StringIO())


@pytest.mark.django_db
def test_the_site_row_follows_the_settings(settings: Any) -> None:
    from django.contrib.sites.models import Site

    from accounts.apps import sync_site

    settings.SITE_DOMAIN, settings.SITE_NAME = "jdr.example.org", "Ma Tablée"
    sync_site(using="default")
    site = Site.objects.get(pk=settings.SITE_ID)
    assert (site.domain, site.name) == ("jdr.example.org", "Ma Tablée")


def test_mail_settings_come_from_the_environment(monkeypatch: Any) -> None:
    import importlib

    from config import settings as module

    monkeypatch.setenv("EMAIL_TIMEOUT", "7")
    monkeypatch.setenv("TABLEE_SITE_URL", "https://jdr.example.org/")
    monkeypatch.setenv("TABLEE_EMAIL_SUBJECT_PREFIX", "[JdR] ")
    try:
        fresh = importlib.reload(module)
        assert fresh.EMAIL_TIMEOUT == 7 and fresh.SITE_DOMAIN == "jdr.example.org"
        assert fresh.EMAIL_SUBJECT_PREFIX == fresh.ACCOUNT_EMAIL_SUBJECT_PREFIX == "[JdR] "
    finally:
        monkeypatch.undo()
        importlib.reload(module)


# ---------------------------------------------------------------------------
# Static checks: docker-compose.yml (Docker cannot run here), the README, .ci/run
# ---------------------------------------------------------------------------
def _compose() -> dict[str, Any]:
    import yaml

    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_the_compose_file_waits_for_migrations_and_checks_health_as_the_app_answers() -> None:
    services = _compose()["services"]
    assert {"caddy", "web", "worker", "beat", "migrate", "postgres", "redis"} <= set(services)
    for name in ("web", "worker", "beat"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["worker"]["command"] == ["./tablee", "worker"]  # which also waits for the migrations
    assert services["beat"]["command"] == ["./tablee", "beat"]
    assert services["migrate"]["command"] == ["./tablee", "migrate"]
    probe = " ".join(services["web"]["healthcheck"]["test"])
    assert "http://127.0.0.1:8000/healthz" in probe  # answered before the HTTPS redirect and Host check
    # Caddy terminates TLS in front of web; web is not published.
    caddy = services["caddy"]
    assert "443:443" in caddy["ports"] and "ports" not in services["web"]
    assert caddy["depends_on"]["web"]["condition"] == "service_healthy"
    assert any(v.startswith("./deploy/Caddyfile:") for v in caddy["volumes"])
    assert "reverse_proxy {$TABLEE_UPSTREAM:web:8000}" in (ROOT / "deploy/Caddyfile").read_text()
    for name in ("web", "worker", "beat"):
        env = services[name]["environment"]
        assert env["TABLEE_NO_VENV"] == "1" and env["TABLEE_MEDIA_ROOT"] == "/app/media"
        assert env["TABLEE_DATA_DIR"] == "/app/data"
        assert {"media:/app/media", "appdata:/app/data"} <= set(services[name]["volumes"])
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "chown -R tablee:tablee /app/media /app/data" in dockerfile and "USER tablee" in dockerfile


def test_the_image_compiles_the_application_to_bytecode_at_build(tmp_path: Path) -> None:
    """The image sets PYTHONDONTWRITEBYTECODE, so the build compiles the application once: the
    Dockerfile's own ``compileall`` command, run as the build runs it (that variable set), writes the
    bytecode of every module under its working directory."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^ENV PYTHONDONTWRITEBYTECODE=1", dockerfile, re.M)
    copy_all = dockerfile.index("COPY . .")
    match = re.search(r"python (-m compileall[^\\\n&]*)", dockerfile[copy_all:])
    assert match, "no compileall after COPY . ."
    package = tmp_path / "app" / "somegame"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("RULE = 1\n")
    (package / "combat.py").write_text("def exchange() -> int:\n    return 2\n")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run([sys.executable, *shlex.split(match.group(1))], cwd=tmp_path / "app", env=env, check=True)
    compiled = sorted(p.name.split(".")[0] for p in package.glob("__pycache__/*.pyc"))
    assert compiled == ["__init__", "combat"]


def test_every_rule_system_is_imported_when_the_process_starts() -> None:
    """django.setup() imports every registered rule system (campaigns' ready()): no page or session
    job pays for importing one, and a system that cannot be imported fails the start."""
    import rules

    code = (
        "import sys, django; django.setup(); import rules; "
        "print(','.join(sorted(s for s in rules.SYSTEM_MODULES.values() if s in sys.modules)))"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "TABLEE_INPROCESS_BEAT": "0"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    ).stdout
    assert out.strip().splitlines()[-1] == ",".join(sorted(rules.SYSTEM_MODULES.values()))


def _environment_variables() -> set[str]:
    names: set[str] = set()
    pattern = re.compile(
        r"""(?:os\.environ(?:\.get)?|env_bool|env_list)\(\s*["']([A-Z][A-Z0-9_]+)["']|os\.environ\[["']([A-Z][A-Z0-9_]+)["']\]"""
    )
    for file in [*ROOT.glob("*/*.py"), *ROOT.glob("*/management/commands/*.py")]:
        if "tests" in file.parts or file.parts[-2] == "bench":
            continue
        for a, b in pattern.findall(file.read_text()):
            names.add(a or b)
    for file in (ROOT / "tablee", ROOT / "docker-compose.yml", ROOT / "deploy/Caddyfile", ROOT / ".env.example"):
        names |= set(re.findall(r"\$\{?((?:TABLEE|DJANGO)_[A-Z0-9_]+)", file.read_text()))
        names |= set(re.findall(r"^((?:TABLEE|DJANGO|EMAIL)_[A-Z0-9_]+)=", file.read_text(), re.MULTILINE))
    return names - {"DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE"}


def test_every_environment_variable_is_documented_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    names = _environment_variables()
    assert {"DATABASE_URL", "EMAIL_TIMEOUT", "TABLEE_RUN_LEASE_SECONDS", "TABLEE_DOMAIN"} <= names
    missing = sorted(n for n in names if f"`{n}`" not in readme)
    assert missing == []


def test_the_readme_documents_every_tablee_command() -> None:
    readme = (ROOT / "README.md").read_text()
    script = (ROOT / "tablee").read_text()
    commands = re.findall(r"^  ([a-z]+)\)$", script, re.MULTILINE)
    assert {
        "serve",
        "test",
        "migrate",
        "createadmin",
        "collectstatic",
        "web",
        "worker",
        "beat",
        "backup",
        "restore",
    } <= set(commands)
    for command in commands:
        assert f"./tablee {command}" in readme, command


def test_ci_creates_the_database_its_url_names() -> None:
    script = (ROOT / ".ci/run").read_text()
    assert "CREATE DATABASE tablee" not in script and 'CREATE DATABASE \\"$db_name\\"' in script


def test_requirements_install_celery_s_redis_transport() -> None:
    requirements = (ROOT / "requirements.txt").read_text()
    assert re.search(r"^celery\[redis\]==", requirements, re.MULTILINE)
