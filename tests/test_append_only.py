"""Every history table is append-only: no edit, no delete, no bulk update or delete (issue 16)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.apps import apps
from django.db import transaction
from django.utils import timezone

from config.history import AppendOnlyModel, AppendOnlyQuerySet, ImmutableRecordError
from conftest import make_table

pytestmark = pytest.mark.django_db

HISTORY = [
    "campaigns.Roll",
    "campaigns.PostVersion",
    "characters.SheetVersion",
    "characters.LedgerEntry",
    "combat.LogEntry",
    "progression.SessionAward",
    "moderation.AuditLog",
    "live.LiveEvent",
]


def _rows(table: Any) -> dict[str, Any]:
    """One saved row of each history table."""
    from campaigns.models import PlaySession, Post, PostVersion, Roll, Thread
    from characters.models import Character, LedgerEntry, SheetVersion
    from combat.models import Encounter, LogEntry
    from live.models import LiveEvent
    from moderation.models import AuditLog
    from progression.models import SessionAward

    campaign = table.campaign
    board = campaign.boards.first()
    thread = Thread.objects.create(board=board, campaign=campaign, title="Fil", created_by=table.gm)
    post = Post.objects.create(thread=thread, campaign=campaign, number=1, author=table.player, body="Texte")
    session = PlaySession.objects.create(campaign=campaign, number=1, opened_by=table.gm)
    character = Character.objects.create(campaign=campaign, owner=table.player, name="Corwin", system=campaign.system)
    encounter = Encounter.objects.create(campaign=campaign, thread=thread, title="Duel", created_by=table.gm)
    return {
        "campaigns.Roll": Roll.objects.create(
            campaign=campaign, sequence=1, kind="expression", created=timezone.now(), prev_hash="0", hash="1"
        ),
        "campaigns.PostVersion": PostVersion.objects.create(post=post, body="Avant", edited_by=table.player),
        "characters.SheetVersion": SheetVersion.objects.create(
            character=character, version=1, name="Corwin", status="draft", author=table.player
        ),
        "characters.LedgerEntry": LedgerEntry.objects.create(
            character=character, currency="xp", amount=3, kind="gm_award", created_by=table.gm
        ),
        "combat.LogEntry": LogEntry.objects.create(encounter=encounter, sequence=1, kind="created", actor=table.gm),
        "progression.SessionAward": SessionAward.objects.create(
            session=session, character=character, code="gm_award", currency="xp", amount=2, kind="gm_award"
        ),
        "moderation.AuditLog": AuditLog.objects.create(actor=table.moderator, action="post_hidden", reason="x"),
        "live.LiveEvent": LiveEvent.objects.create(channel="thread:1", kind="post-created", data={"n": 1}),
    }


@pytest.fixture
def rows() -> dict[str, Any]:
    return _rows(make_table("ambre"))


def _refused(call: Callable[[], Any]) -> None:
    with pytest.raises(ImmutableRecordError), transaction.atomic():
        call()


@pytest.mark.parametrize("label", HISTORY)
def test_a_history_table_uses_the_append_only_base(label: str) -> None:
    model = apps.get_model(label)
    assert issubclass(model, AppendOnlyModel)
    assert isinstance(model.objects.all(), AppendOnlyQuerySet)
    assert isinstance(model._default_manager.all(), AppendOnlyQuerySet)


@pytest.mark.parametrize("label", HISTORY)
def test_a_history_row_refuses_edit_delete_and_bulk_changes(rows: dict[str, Any], label: str) -> None:
    row = rows[label]
    model = type(row)
    before = model._base_manager.filter(pk=row.pk).values().get()
    _refused(row.save)
    _refused(row.delete)
    _refused(lambda: model.objects.filter(pk=row.pk).update(created=timezone.now()))
    _refused(lambda: model.objects.filter(pk=row.pk).delete())
    _refused(lambda: model.objects.all().delete())
    _refused(lambda: model.objects.bulk_update([row], ["created"]))
    assert model._base_manager.filter(pk=row.pk).values().get() == before
    assert model.objects.count() == 1


def test_a_new_history_row_is_still_inserted(rows: dict[str, Any]) -> None:
    from live.models import LiveEvent

    LiveEvent.objects.create(channel="thread:1", kind="post-created")
    assert LiveEvent.objects.filter(channel="thread:1").count() == 2


def test_deleting_a_parent_still_cascades_to_its_history(rows: dict[str, Any]) -> None:
    """A post deleted by its service takes its versions with it (behaviour unchanged)."""
    from campaigns.models import Post, PostVersion

    post = rows["campaigns.PostVersion"].post
    Post.objects.filter(pk=post.pk).delete()
    assert not PostVersion.objects.filter(post_id=post.pk).exists()


def test_rhythm_records_are_append_only(db: Any) -> None:
    """#20: a skipped turn and a sent reminder are recorded once, never edited."""
    from rhythm.models import Nudge, TurnSkip

    for model in (Nudge, TurnSkip):
        with pytest.raises(ImmutableRecordError):
            model.objects.all().update(round=2)
        with pytest.raises(ImmutableRecordError):
            model.objects.all().delete()
