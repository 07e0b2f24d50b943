"""Ids too large for the database are 404s, never server errors."""

from __future__ import annotations

import pytest
from django.test import Client

HUGE = "9" * 25


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        f"/campaigns/threads/{HUGE}/",
        f"/campaigns/posts/{HUGE}/",
        f"/characters/{HUGE}/",
        f"/combat/{HUGE}/",
        f"/progression/characters/{HUGE}/",
        f"/live/thread/{HUGE}/",
        f"/api/v1/characters/{HUGE}/",
    ],
)
def test_huge_ids_are_not_found(path: str, table: object) -> None:
    client = Client()
    client.force_login(table.gm)  # type: ignore[attr-defined]
    assert client.get(path).status_code == 404
