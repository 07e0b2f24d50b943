"""Reports (*signalements*), the queue and its permission rows."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.http import Http404
from django.urls import reverse

from moderation import services
from moderation.models import AuditLog, Report
from moderation.tests.conftest import client_for

pytestmark = pytest.mark.django_db


def test_it_reports_a_post_with_its_campaign(table: Any, player_post: Any) -> None:
    report = services.report_target(table.player2, post=player_post, reason="harassment", details="Insultes")
    assert report.kind == Report.Kind.POST
    assert report.campaign == table.campaign
    assert report.status == Report.Status.OPEN
    assert report.target_label == "La cour de Rebma #2"


def test_it_reports_a_character_and_a_campaign(table: Any, public_table: Any) -> None:
    from characters.models import Character

    hero = Character.objects.create(campaign=table.campaign, owner=table.player, name="Corwin", system="ambre")
    report = services.report_target(table.player2, character=hero, reason="cheating")
    assert (report.kind, report.campaign, report.target_label) == ("character", table.campaign, "Corwin")
    report = services.report_target(table.outsider, campaign=public_table.campaign, reason="spam")
    assert (report.kind, report.campaign) == ("campaign", public_table.campaign)


def test_it_refuses_to_report_what_the_reporter_cannot_see(table: Any, player_post: Any) -> None:
    with pytest.raises(Http404):
        services.report_target(table.outsider, post=player_post, reason="spam")
    with pytest.raises(Http404):
        services.report_target(table.outsider, campaign=table.campaign, reason="spam")
    response = client_for(table.outsider).post(
        reverse("moderation:report_create", args=["post", player_post.pk]), {"reason": "spam"}
    )
    assert response.status_code == 404
    assert Report.objects.count() == 0


def test_it_validates_reason_and_details(table: Any, player_post: Any) -> None:
    with pytest.raises(ValidationError) as exc:
        services.report_target(table.player2, post=player_post, reason="nope")
    assert "reason" in exc.value.message_dict
    with pytest.raises(ValidationError) as exc:
        services.report_target(table.player2, post=player_post, reason="other", details="  ")
    assert "details" in exc.value.message_dict
    with pytest.raises(ValidationError):
        services.report_target(table.player2, post=player_post, campaign=table.campaign, reason="spam")
    assert Report.objects.count() == 0


def test_it_refuses_a_duplicate_open_report(table: Any, player_post: Any) -> None:
    services.report_target(table.player2, post=player_post, reason="spam")
    with pytest.raises(ValidationError) as exc:
        services.report_target(table.player2, post=player_post, reason="spam")
    assert "déjà signalé" in exc.value.messages[0]
    assert Report.objects.count() == 1


def test_it_reports_through_the_form_in_french(table: Any, player_post: Any) -> None:
    client = client_for(table.player2)
    url = reverse("moderation:report_create", args=["post", player_post.pk])
    page = client.get(url)
    assert page.status_code == 200
    assert "Envoyer le signalement" in page.content.decode()
    bad = client.post(url, {"reason": "other"})
    assert bad.status_code == 400
    assert "Dites ce qui ne va pas." in bad.content.decode()
    ok = client.post(url, {"reason": "spam", "next": "/"})
    assert ok.status_code == 302
    assert Report.objects.get().reporter == table.player2


def test_it_answers_404_for_an_unknown_kind(table: Any) -> None:
    response = client_for(table.player).get("/moderation/report/user/1/")
    assert response.status_code == 404


# --- the queue ---------------------------------------------------------------
@pytest.fixture
def reports(table: Any, other_table: Any, player_post: Any) -> tuple[Report, Report]:
    from campaigns import services as campaign_services

    mine = services.report_target(table.player2, post=player_post, reason="spam")
    board = other_table.campaign.boards.first()
    other_thread = campaign_services.create_thread(other_table.player, board, title="Ailleurs", body="Bonjour")
    other = services.report_target(other_table.player2, post=other_thread.posts.get(), reason="inappropriate")
    return mine, other


def test_it_shows_every_report_to_moderators(table: Any, reports: Any) -> None:
    response = client_for(table.moderator).get(reverse("moderation:queue"))
    assert response.status_code == 200
    assert list(response.context["page"].object_list) == sorted(reports, key=lambda r: -r.pk)


def test_it_shows_a_gm_only_the_reports_of_their_campaigns(table: Any, other_table: Any, reports: Any) -> None:
    mine, other = reports
    for gm in (table.gm, table.cogm):
        response = client_for(gm).get(reverse("moderation:queue"))
        assert response.status_code == 200
        assert list(response.context["page"].object_list) == [mine]
        assert client_for(gm).get(reverse("moderation:report", args=[other.pk])).status_code == 404
    response = client_for(other_table.gm).get(reverse("moderation:queue"))
    assert list(response.context["page"].object_list) == [other]
    assert client_for(other_table.gm).get(reverse("moderation:report", args=[mine.pk])).status_code == 404


@pytest.mark.parametrize("role", ["player", "player2", "spectator", "outsider"])
def test_it_hides_the_queue_from_non_gms(table: Any, reports: Any, role: str) -> None:
    client = client_for(getattr(table, role))
    assert client.get(reverse("moderation:queue")).status_code == 404
    assert client.get(reverse("moderation:report", args=[reports[0].pk])).status_code == 404
    assert client.get(reverse("moderation:log")).status_code == 404


def test_it_sends_anonymous_visitors_to_login(reports: Any) -> None:
    from django.test import Client

    response = Client().get(reverse("moderation:queue"))
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_it_lets_a_gm_close_a_report_of_their_campaign(table: Any, other_table: Any, reports: Any) -> None:
    mine, other = reports
    response = client_for(table.gm).post(
        reverse("moderation:report", args=[mine.pk]), {"status": "dismissed", "note": "Rien de grave"}
    )
    assert response.status_code == 302
    mine.refresh_from_db()
    assert (mine.status, mine.handled_by, mine.resolution_note) == ("dismissed", table.gm, "Rien de grave")
    entry = AuditLog.objects.get(action=AuditLog.Action.REPORT_DISMISSED)
    assert (entry.actor, entry.report, entry.campaign) == (table.gm, mine, table.campaign)
    with pytest.raises(Http404):
        services.handle_report(table.gm, other, status="resolved")
    response = client_for(table.gm).post(reverse("moderation:report", args=[other.pk]), {"status": "resolved"})
    assert response.status_code == 404
    other.refresh_from_db()
    assert other.status == "open"


def test_it_validates_the_decision(table: Any, reports: Any) -> None:
    with pytest.raises(ValidationError):
        services.handle_report(table.moderator, reports[0], status="open")
    assert reports[0].status == "open"
    assert not AuditLog.objects.exists()


def test_it_filters_the_queue(table: Any, reports: Any) -> None:
    client = client_for(table.moderator)
    services.handle_report(table.moderator, reports[1], status="resolved")
    open_only = client.get(reverse("moderation:queue"))
    assert list(open_only.context["page"].object_list) == [reports[0]]
    resolved = client.get(reverse("moderation:queue"), {"status": "resolved"})
    assert list(resolved.context["page"].object_list) == [reports[1]]
    campaign_report = services.report_target(table.player, campaign=table.campaign, reason="spam")
    campaigns = client.get(reverse("moderation:queue"), {"status": "", "kind": "campaign"})
    assert list(campaigns.context["page"].object_list) == [campaign_report]
    fragment = client.get(reverse("moderation:queue"), HTTP_HX_REQUEST="true")
    assert b"<h1>" not in fragment.content


def test_it_answers_htmx_with_the_fragment(table: Any, player_post: Any) -> None:
    client = client_for(table.player2)
    url = reverse("moderation:report_create", args=["post", player_post.pk])
    bad = client.post(url, {"reason": "other"}, HTTP_HX_REQUEST="true")
    assert bad.status_code == 200
    assert "Dites ce qui ne va pas." in bad.content.decode() and "<html" not in bad.content.decode()
    ok = client.post(url, {"reason": "spam"}, HTTP_HX_REQUEST="true")
    assert ok.status_code == 200 and "Merci" in ok.content.decode()
    assert Report.objects.count() == 1


def test_the_report_link_partial_renders_for_members_only(table: Any, player_post: Any) -> None:
    from django.contrib.auth.models import AnonymousUser
    from django.template.loader import render_to_string
    from django.test import RequestFactory

    request = RequestFactory().get("/campaigns/threads/1/?page=2")
    request.user = table.player2
    html = render_to_string("moderation/report_link.html", {"kind": "post", "target": player_post}, request=request)
    assert reverse("moderation:report_create", args=["post", player_post.pk]) in html
    assert "next=/campaigns/threads/1/%3Fpage%3D2" in html
    request.user = AnonymousUser()
    assert (
        render_to_string(
            "moderation/report_link.html", {"kind": "post", "target": player_post}, request=request
        ).strip()
        == ""
    )


def test_a_gm_does_not_see_complaints_about_the_campaign_or_themselves(table: Any, thread: Any) -> None:
    from campaigns import services as campaign_services

    gm_post = thread.posts.get(number=1)
    about_gm = services.report_target(table.player, post=gm_post, reason="harassment")
    about_campaign = services.report_target(table.player, campaign=table.campaign, reason="inappropriate")
    cogm_post = campaign_services.create_post(table.cogm, thread, body="Hors sujet")
    about_cogm = services.report_target(table.player, post=cogm_post, reason="spam")
    assert set(services.visible_reports(table.gm)) == {about_cogm}
    assert set(services.visible_reports(table.cogm)) == {about_gm}
    assert set(services.visible_reports(table.moderator)) == {about_gm, about_campaign, about_cogm}
    assert client_for(table.gm).get(reverse("moderation:report", args=[about_gm.pk])).status_code == 404


def test_gms_do_not_see_who_reported(table: Any, player_post: Any) -> None:
    report = services.report_target(table.player2, post=player_post, reason="spam")
    gm_page = client_for(table.gm).get(reverse("moderation:report", args=[report.pk])).content.decode()
    assert "player2" not in gm_page and "un membre" in gm_page
    gm_queue = client_for(table.gm).get(reverse("moderation:queue")).content.decode()
    assert "player2" not in gm_queue
    moderator_page = client_for(table.moderator).get(reverse("moderation:report", args=[report.pk])).content.decode()
    assert "player2" in moderator_page


def test_it_titles_a_report_without_english_punctuation(table: Any, reports: Any) -> None:
    mine, _ = reports
    html = client_for(table.moderator).get(reverse("moderation:report", args=[mine.pk])).content.decode()
    title = html.split("<h2>", 1)[1].split("</h2>", 1)[0]
    assert title.startswith("Message · ") and "Message:" not in title
