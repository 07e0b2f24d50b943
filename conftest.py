"""Shared pytest fixtures: the cast of a table (GM, co-GM, players,
spectator, outsider, moderator) as in DESIGN.md's role table."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import pytest

# The test process serves config.asgi in a thread for the browser tests: its garbage collector stays
# as Python sets it (config/gc_tuning.py is for server processes; tests/test_gc_tuning.py checks it).
os.environ.setdefault("TABLEE_GC_TUNING", "0")


@dataclass
class Table:
    campaign: Any
    gm: Any
    cogm: Any
    player: Any
    player2: Any
    spectator: Any
    outsider: Any
    moderator: Any

    def users(self) -> dict[str, Any]:
        return {
            "gm": self.gm,
            "cogm": self.cogm,
            "player": self.player,
            "player2": self.player2,
            "spectator": self.spectator,
            "outsider": self.outsider,
            "moderator": self.moderator,
        }


def make_user(username: str, **extra: Any) -> Any:
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(
        username=username, email=f"{username}@example.test", password="pw-" + username + "-12345", **extra
    )
    return user


def make_table(system: str = "ambre", *, is_public: bool = False, prefix: str = "") -> Table:
    """A campaign with one user per role. Private by default."""
    from django.contrib.auth.models import Permission

    from campaigns.models import Board, Campaign, Membership, Role

    gm = make_user(f"{prefix}gm")
    campaign = Campaign.objects.create(
        title=f"{prefix}Table {system}",
        slug=f"{prefix}table-{system}",
        system=system,
        is_public=is_public,
        created_by=gm,
    )
    cast = {"gm": gm}
    for name in ("cogm", "player", "player2", "spectator"):
        cast[name] = make_user(f"{prefix}{name}")
    for name, role in (
        ("gm", Role.GM),
        ("cogm", Role.COGM),
        ("player", Role.PLAYER),
        ("player2", Role.PLAYER),
        ("spectator", Role.SPECTATOR),
    ):
        Membership.objects.create(campaign=campaign, user=cast[name], role=role)
    for position, (name, kind) in enumerate(
        (("En jeu", Board.Kind.IN_CHARACTER), ("Hors jeu", Board.Kind.OUT_OF_CHARACTER))
    ):
        Board.objects.create(campaign=campaign, name=name, kind=kind, position=position)
    outsider = make_user(f"{prefix}outsider")
    moderator = make_user(f"{prefix}moderator")
    moderator.user_permissions.add(Permission.objects.get(codename="moderate"))
    return Table(campaign=campaign, outsider=outsider, moderator=moderator, **cast)


@pytest.fixture
def table(db: Any) -> Table:
    return make_table("ambre")


@pytest.fixture
def public_table(db: Any) -> Table:
    return make_table("altaride", is_public=True, prefix="pub")


# ---------------------------------------------------------------------------
# Browser tests: an ASGI server (uvicorn) in a thread + Debian's Chromium.
# ---------------------------------------------------------------------------
CHROMIUM = os.environ.get("TABLEE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


class AsgiServer:
    """Serves ``config.asgi:application`` with uvicorn in a background thread."""

    def __init__(self) -> None:
        import socket
        import threading

        import uvicorn

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            "config.asgi:application", host="127.0.0.1", port=self.port, log_level="warning", lifespan="off"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> AsgiServer:
        import time

        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: Any, django_db_blocker: Any) -> Any:
    """pytest-django's test database, and before it is dropped, the end of
    connections that ASGI server threads, live streams or a Celery worker
    left open (else PostgreSQL refuses the drop)."""
    yield
    from django.db import connection

    if connection.vendor == "postgresql":
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )


@pytest.fixture
def asgi_server(transactional_db: Any, settings: Any) -> Any:
    """A real ASGI server on a free port, sharing the test database."""
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    settings.ALLOWED_HOSTS = ["*"]
    server = AsgiServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser() -> Any:
    """A headless Chromium (Debian's) driven by Playwright."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def screenshot_dir() -> Any:
    from pathlib import Path

    path = Path(__file__).parent / "test-artifacts"
    path.mkdir(exist_ok=True)
    return path


def login(page: Any, base_url: str, username: str, password: str) -> None:
    """Log in through the real login form."""
    page.goto(f"{base_url}/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", password)
    page.click("main form button[type=submit]")
    page.wait_for_load_state("networkidle")
