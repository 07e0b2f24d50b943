"""A token-authenticated request looks its token up once: the suspension and idempotency middleware
ask before DRF does, and what they found is kept on the request (``config.api_user.remembered``).
With the database away, it answers 503 after one wait for it, not one per lookup."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import OperationalError, connection, connections
from django.test.utils import CaptureQueriesContext

from api.tests.conftest import token_client
from campaigns.models import Post, Thread


def _token_lookups(queries: CaptureQueriesContext) -> int:
    return sum(1 for q in queries.captured_queries if 'FROM "api_apitoken"' in q["sql"])


@pytest.mark.django_db
def test_a_read_looks_the_token_up_once(table: Any) -> None:
    client = token_client(table.player)
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/api/v1/me/")
    assert response.status_code == 200
    assert response.json()["username"] == table.player.username
    assert _token_lookups(queries) == 1  # was 2: the suspension middleware, then DRF


@pytest.mark.django_db
def test_an_idempotent_post_looks_the_token_up_once(table: Any) -> None:
    board = table.campaign.boards.first()
    thread = Thread.objects.create(board=board, campaign=table.campaign, title="Scène 1", created_by=table.gm)
    client = token_client(table.player)
    with CaptureQueriesContext(connection) as queries:
        response = client.post(
            f"/api/v1/threads/{thread.pk}/posts/", {"body": "Une fois"}, format="json", HTTP_IDEMPOTENCY_KEY="k-1"
        )
    assert response.status_code == 201, response.content[:300]
    assert _token_lookups(queries) == 1  # was 3: idempotency, suspension, DRF
    replay = client.post(
        f"/api/v1/threads/{thread.pk}/posts/", {"body": "Une fois"}, format="json", HTTP_IDEMPOTENCY_KEY="k-1"
    )
    assert replay["Idempotent-Replayed"] == "true"
    assert Post.objects.filter(thread=thread).count() == 1


@pytest.mark.django_db
def test_a_refused_token_is_refused_once_with_its_message(table: Any) -> None:
    client = token_client(table.player)
    client.credentials(HTTP_AUTHORIZATION="Token not-a-key")
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/api/v1/me/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert _token_lookups(queries) == 1


@pytest.mark.django_db
def test_with_the_database_away_a_token_request_waits_for_it_once(table: Any, monkeypatch: Any) -> None:
    client = token_client(table.player)
    client.get("/api/v1/me/")
    attempts = []

    def away(self: Any) -> None:
        attempts.append(1)
        raise OperationalError("couldn't get a connection after 1.00 sec")

    monkeypatch.setattr(type(connections["default"]), "ensure_connection", away)
    client.raise_request_exception = False
    response = client.get("/api/v1/me/")
    assert response.status_code == 503
    assert response.json()["code"] == "unavailable"
    assert len(attempts) == 1  # was 2: the middleware's lookup failed quietly, then DRF's waited again


@pytest.mark.django_db
def test_a_token_s_member_is_loaded_as_a_session_s_in_one_query(table: Any) -> None:
    """The token, then the member with their profile and the moderator, suspended and unread facts
    (config.auth.load_user): two queries for /me/, not four (permissions and suspension asked apart)."""
    from moderation import services as moderation

    client = token_client(table.player)
    client.get("/api/v1/me/")
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/api/v1/me/")
    assert response.status_code == 200 and response.json()["username"] == table.player.username
    assert len(queries.captured_queries) == 2, [q["sql"][:80] for q in queries.captured_queries]
    # The annotation still refuses a suspended member's token, for reads too.
    moderation.suspend_user(table.moderator, table.player, reason="test", days=None)
    refused = client.get("/api/v1/me/")
    assert refused.status_code == 403 and refused.json()["code"] == "suspended"
