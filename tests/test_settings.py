"""The settings work with embedded defaults and with PostgreSQL + Redis."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROBE = (
    "import json, django; from django.conf import settings as s; django.setup();"
    "print(json.dumps({'engine': s.DATABASES['default']['ENGINE'], 'cache': s.CACHES['default']['BACKEND'],"
    "'eager': s.CELERY_TASK_ALWAYS_EAGER, 'broker': s.CELERY_BROKER_URL, 'live': s.LIVE_BACKEND,"
    "'debug': s.DEBUG}))"
)
BASE_ENV = {"PATH": os.environ.get("PATH", ""), "DJANGO_SETTINGS_MODULE": "config.settings", "HOME": "/tmp"}


def probe(env: dict[str, str]) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env={**BASE_ENV, **env}, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_it_uses_embedded_defaults_without_configuration() -> None:
    found = probe({})
    assert found["engine"] == "django.db.backends.sqlite3"
    assert found["cache"].endswith("LocMemCache")
    assert found["eager"] is True
    assert found["live"] == "inprocess"
    assert found["broker"] == "memory://"


def test_it_uses_postgres_and_redis_when_configured() -> None:
    found = probe(
        {"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/tablee", "REDIS_URL": "redis://127.0.0.1:6379/0"}
    )
    # Django's backend with the pool's wait cut short while the server is away (config/postgresql).
    assert found["engine"] == "config.postgresql"
    assert found["cache"].endswith("RedisCache")
    assert found["eager"] is False
    assert found["live"] == "redis"
    assert found["broker"] == "redis://127.0.0.1:6379/0"


def test_without_the_pool_it_is_still_the_site_s_postgresql_backend() -> None:
    """No pool (``TABLEE_DB_POOL_SIZE=0``; also Celery workers and tests): the same backend, which
    reads dates in C (config/postgresql/timestamps.py) and leaves the pool out."""
    found = probe({"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/tablee", "TABLEE_DB_POOL_SIZE": "0"})
    assert found["engine"] == "config.postgresql"


def test_it_refuses_production_without_a_secret_key() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env={**BASE_ENV, "DJANGO_DEBUG": "0"}, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


def test_it_passes_the_deployment_checklist_with_production_settings() -> None:
    env = {
        **BASE_ENV,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "x" * 20 + "-production-secret-key-with-enough-entropy-1234567890",
        "DJANGO_ALLOWED_HOSTS": "tablee.example.org",
        "DJANGO_CSRF_TRUSTED_ORIGINS": "https://tablee.example.org",
        "DJANGO_HSTS_PRELOAD": "1",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.services
def test_it_reaches_the_real_services_when_configured() -> None:
    """In CI (DATABASE_URL and REDIS_URL set) the suite runs on PostgreSQL and Redis."""
    from django.conf import settings

    if not os.environ.get("DATABASE_URL") or not os.environ.get("REDIS_URL"):
        pytest.skip("DATABASE_URL/REDIS_URL not set: embedded defaults")
    import redis
    from django.db import connection

    assert connection.vendor == "postgresql"
    assert redis.Redis.from_url(settings.REDIS_URL).ping() is True
