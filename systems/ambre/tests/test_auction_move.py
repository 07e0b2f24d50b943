"""Issue 16: the auction moved from the characters app to the Ambre plug-in without losing a row.

The migrations only move the model's state (``SeparateDatabaseAndState``): the
table ``characters_auction`` keeps every auction, its id and its sequence. The
Celery task keeps its old name, so messages queued before the move still run.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from conftest import make_table

BEFORE = [("characters", "0006_i18_portrait_names"), ("ambre", None)]
AFTER = [("characters", "0007_i16_auction_moves_to_ambre"), ("ambre", "0001_initial")]


def _migrate(targets: list[tuple[str, str | None]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state([t for t in targets if t[1] is not None]).apps


@pytest.mark.django_db(transaction=True)
def test_it_keeps_every_auction_through_the_move_and_back() -> None:
    table = make_table("ambre", prefix="mv")
    old_apps = _migrate(BEFORE)
    try:
        OldAuction = old_apps.get_model("characters", "Auction")
        assert OldAuction._meta.db_table == "characters_auction"
        old = OldAuction.objects.create(
            campaign_id=table.campaign.pk, state={"players": ["7"], "seq": 3}, status="paused", timeout_seconds=60
        )
        with pytest.raises(LookupError):
            old_apps.get_model("ambre", "Auction")
        new_apps = _migrate(AFTER)
        NewAuction = new_apps.get_model("ambre", "Auction")
        moved = NewAuction.objects.get(pk=old.pk)
        assert (moved.campaign_id, moved.state, moved.status, moved.timeout_seconds) == (
            table.campaign.pk,
            {"players": ["7"], "seq": 3},
            "paused",
            60,
        )
        with pytest.raises(LookupError):
            new_apps.get_model("characters", "Auction")
        # The content type followed the model (permissions, admin history).
        ContentType = new_apps.get_model("contenttypes", "ContentType")
        assert not ContentType.objects.filter(app_label="characters", model="auction").exists()
        # The id sequence goes on after the moved row.
        assert NewAuction.objects.create(campaign_id=table.campaign.pk, state={}).pk > old.pk
        # And back: the rows are still there for the old state.
        back = _migrate(BEFORE).get_model("characters", "Auction")
        assert back.objects.filter(pk=old.pk, status="paused").exists()
    finally:
        _migrate(AFTER)
    from systems.ambre.models import Auction

    assert Auction.objects.filter(pk=old.pk, status="paused").exists()


def test_the_expiry_task_keeps_its_old_name() -> None:
    from config.celery import app
    from systems.ambre.tasks import expire_auction

    app.loader.import_default_modules()
    assert expire_auction.name == "characters.expire_auction"
    registered = app.tasks["characters.expire_auction"]  # what a worker finds for an old message
    assert registered.run.__module__ == "systems.ambre.tasks" and registered.acks_late
