"""Property-based run of schemathesis against the live schema (bounded).

The schema is fetched from ``/api/schema/`` of the running Django app (WSGI,
in process, on the test database). Every operation is called with generated
inputs, as the GM and as a player of a populated table (token auth), with path parameters
sometimes pointing at real objects; each response must not be a server error
and must match the schema (status code, content type, body).

Examples per operation: ``TABLEE_SCHEMATHESIS_EXAMPLES`` (default 3) so CI
stays quick; raise it locally for a deeper run.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

MAX_EXAMPLES = int(os.environ.get("TABLEE_SCHEMATHESIS_EXAMPLES", "3"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]

pytestmark = pytest.mark.django_db


@pytest.fixture
def populated(table: Any) -> dict[str, Any]:
    """A table with a thread, posts with rolls, an open session and a token for the GM."""
    from api import services as api_services
    from campaigns import services

    board = table.campaign.boards.first()
    thread = services.create_thread(
        table.gm, board, title="Scène 1", body="Il pleut sur Ambre.", roll_requests=[{"expression": "2d6+1"}]
    )
    services.create_post(table.player, thread, body="Je regarde autour de moi.")
    session = services.open_session(table.gm, table.campaign, title="Séance 1")
    from api.tests.conftest import valid_ambre_sheet
    from characters import services as character_services
    from characters.models import Character
    from combat import services as combat_services
    from systems.ambre import services as auction_services

    character = character_services.create_character(table.player, table.campaign, name="Corwin")
    auction = auction_services.open_auction(table.gm, table.campaign, characters=[character])
    approved = character_services.create_character(table.player2, table.campaign, name="Eric")
    Character.objects.filter(pk=approved.pk).update(status="approved", sheet=valid_ambre_sheet("Eric"))
    approved.refresh_from_db()
    changed = {**approved.sheet, "background": "Changé."}
    change = character_services.request_change(table.player2, approved, sheet=changed, expected_version=1)
    encounter = combat_services.create_encounter(table.gm, thread, title="Embuscade")
    participant = combat_services.add_participant(table.gm, encounter, character=character)[0]
    _token, key = api_services.create_token(table.gm, name="schemathesis")
    _token, player_key = api_services.create_token(table.player, name="schemathesis")
    post = thread.posts.order_by("number").first()
    known = {
        "campaign": str(table.campaign.pk),
        "board_id": board.pk,
        "thread_id": thread.pk,
        "post_id": post.pk,
        "roll_id": post.rolls.first().pk,
        "session_id": session.pk,
        "user_id": table.player.pk,
        "slug": "ambre",
        "character_id": character.pk,
        "encounter_id": encounter.pk,
        "participant_id": participant.pk,
        "auction_id": auction.pk,
        "change_id": change.pk,
    }
    return {"key": key, "keys": {"gm": key, "player": player_key}, "known": known, "table": table}


@pytest.fixture
def keep_db_connection() -> Any:
    """The WSGI handler closes the connection after each request (the test
    client avoids it the same way): keep it, it holds the test transaction."""
    from django.core import signals
    from django.db import close_old_connections

    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.mark.parametrize("role", ["gm", "player"])
def test_it_finds_no_server_error_and_no_schema_violation(
    populated: dict[str, Any], keep_db_connection: Any, settings: Any, role: str
) -> None:
    """As the table's GM and as one of its players (who owns the character, the auction
    seat and the participant among the real ids)."""
    from config.wsgi import application

    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "user": "100000/min", "ip": "100000/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
    # identity: schemathesis' WSGI transport does not decode the gzip of config.compression.
    headers = {"Authorization": f"Token {populated['keys'][role]}", "Accept-Encoding": "identity"}
    known = populated["known"]
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 30
    failures: list[str] = []

    for operation in operations:

        @given(case=operation.as_strategy(), use_known=st.booleans())
        @hypothesis_settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            database=None,
            derandomize=True,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def run(case: Any, use_known: bool) -> None:
            if use_known and case.path_parameters:
                case.path_parameters = {k: known.get(k, v) for k, v in case.path_parameters.items()}
            case.call_and_validate(headers=headers, checks=CHECKS)

        try:
            run()
        except (Exception, BaseExceptionGroup) as exc:  # collect every failing operation, then report them all
            failures.append(f"{operation.method.upper()} {operation.path}: {exc}")
    assert not failures, "\n\n".join(failures)
