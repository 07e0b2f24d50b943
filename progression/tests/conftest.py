"""Fixtures of the progression tests: characters, sessions and rolls."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

import rules


def make_character(table: Any, owner: Any, name: str, *, sheet: dict[str, Any] | None = None, **extra: Any) -> Any:
    from characters.models import Character

    system = rules.get_system(table.campaign.system)
    base = system.default_sheet()
    base.update(sheet or {})
    return Character.objects.create(
        campaign=table.campaign,
        owner=owner,
        name=name,
        system=table.campaign.system,
        sheet=base,
        schema_version=system.schema_version,
        status=extra.pop("status", Character.Status.APPROVED),
        **extra,
    )


def make_session(table: Any, number: int = 1, *, closed: bool = True) -> Any:
    from campaigns.models import PlaySession

    return PlaySession.objects.create(
        campaign=table.campaign,
        number=number,
        title=f"Séance {number}",
        status=PlaySession.Status.CLOSED if closed else PlaySession.Status.OPEN,
        closed_at=timezone.now() if closed else None,
        opened_by=table.gm,
    )


def make_roll(table: Any, character: Any, session: Any, tags: list[str], *, natural_ones: int | None = None) -> Any:
    from campaigns.models import Roll

    sequence = Roll.objects.filter(campaign=table.campaign).count() + 1
    outcome: dict[str, Any] = {}
    if natural_ones is not None:
        outcome["natural_ones"] = natural_ones
    return Roll.objects.create(
        campaign=table.campaign,
        sequence=sequence,
        session=session,
        roller=character.owner,
        character=character,
        kind="system",
        system=table.campaign.system,
        request={"kind": "test"},
        resolution={"system": table.campaign.system, "kind": "test", "tags": tags, "outcome": outcome, "draws": [1]},
        created=timezone.now(),
        prev_hash="0" * 64,
        hash=f"{sequence:064d}",
    )


@pytest.fixture
def altaride_table(db: Any) -> Any:
    from conftest import make_table

    return make_table("altaride", prefix="alt")


@pytest.fixture
def run_on_commit(django_capture_on_commit_callbacks: Any) -> Any:
    """Run a service and execute its on-commit callbacks (the eager task)."""

    def runner(fn: Any, *args: Any, **kwargs: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return fn(*args, **kwargs)

    return runner


@pytest.fixture(autouse=True)
def fast_password_hasher(settings: Any) -> None:
    """Tables create many users: hash their test passwords cheaply."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
