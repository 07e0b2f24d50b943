"""Issue 18 item 4: hiding a post through the API is the page's moderation, and a
moderator's hide is the moderators' to lift."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from api.tests.conftest import assert_error, token_client
from campaigns import services as campaign_services
from live.models import LiveEvent
from moderation import services
from moderation.models import AuditLog, Report

pytestmark = pytest.mark.django_db


@pytest.fixture
def post(table: Any) -> Any:
    board = table.campaign.boards.first()
    thread = campaign_services.create_thread(table.gm, board, title="Scène", body="Ouverture.")
    return campaign_services.create_post(table.player, thread, body="Un message douteux")


def test_the_api_hide_writes_the_log_closes_reports_and_publishes(table: Any, post: Any) -> None:
    report = services.report_target(table.player2, post=post, reason="spam")
    before = LiveEvent.objects.filter(channel=f"thread:{post.thread_id}").count()
    url = f"/api/v1/posts/{post.pk}/hide/"
    # Like the page, hiding needs a reason (it goes into the log); nothing changes without one.
    assert_error(token_client(table.gm).post(url, {}, format="json"), 400, "invalid", "reason")
    post.refresh_from_db()
    assert not post.hidden
    response = token_client(table.gm).post(url, {"reason": "hors sujet"}, format="json")
    assert response.status_code == 200
    post.refresh_from_db()
    assert post.hidden and post.hidden_by == table.gm
    entry = AuditLog.objects.get(action=AuditLog.Action.POST_HIDDEN, post=post)
    assert entry.actor == table.gm and entry.reason == "hors sujet"
    report.refresh_from_db()
    assert report.status == Report.Status.RESOLVED
    assert LiveEvent.objects.filter(channel=f"thread:{post.thread_id}").count() == before + 1
    # Showing it again through the API is recorded too.
    assert token_client(table.gm).post(url, {"hidden": False}, format="json").status_code == 200
    post.refresh_from_db()
    assert not post.hidden
    assert AuditLog.objects.filter(action=AuditLog.Action.POST_RESTORED, post=post, actor=table.gm).exists()


def test_players_and_outsiders_cannot_hide(table: Any, post: Any) -> None:
    url = f"/api/v1/posts/{post.pk}/hide/"
    assert_error(token_client(table.player2).post(url, {"reason": "x"}, format="json"), 403, "permission_denied")
    assert_error(token_client(table.outsider).post(url, {"reason": "x"}, format="json"), 404, "not_found")
    post.refresh_from_db()
    assert not post.hidden and not AuditLog.objects.filter(post=post).exists()


def test_a_moderators_hide_is_lifted_by_moderators_only(table: Any, post: Any) -> None:
    url = f"/api/v1/posts/{post.pk}/hide/"
    assert token_client(table.moderator).post(url, {"reason": "illégal"}, format="json").status_code == 200
    post.refresh_from_db()
    for gm in (table.gm, table.cogm):
        assert_error(token_client(gm).post(url, {"hidden": False}, format="json"), 403, "permission_denied")
        # Hiding it again (to own the hide, then lift it) is refused as well.
        assert_error(token_client(gm).post(url, {"reason": "à moi"}, format="json"), 403, "permission_denied")
        with pytest.raises(services.PermissionDenied):
            services.restore_post(gm, post)
    page = Client()
    page.force_login(table.gm)
    page.post(f"/moderation/posts/{post.pk}/visibility/", {"hidden": "0", "reason": "non"})
    post.refresh_from_db()
    assert post.hidden and post.hidden_by == table.moderator
    # The GM still reads it, without the button to lift the hide.
    html = page.get(f"/campaigns/posts/{post.pk}/", follow=True).content.decode()
    assert "Un message douteux" in html and f"/moderation/posts/{post.pk}/visibility/" not in html
    assert token_client(table.moderator).post(url, {"hidden": False}, format="json").status_code == 200
    post.refresh_from_db()
    assert not post.hidden


def test_a_gms_hide_may_be_lifted_by_a_cogm(table: Any, post: Any) -> None:
    url = f"/api/v1/posts/{post.pk}/hide/"
    assert token_client(table.gm).post(url, {"reason": "plus tard"}, format="json").status_code == 200
    assert token_client(table.cogm).post(url, {"hidden": False}, format="json").status_code == 200
    post.refresh_from_db()
    assert not post.hidden
