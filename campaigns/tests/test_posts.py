"""Posts: bad input, pagination by number, unread markers, quote and reply, search, rate limit, live events."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from campaigns import services
from campaigns.models import Notification, Post, Roll, ThreadRead
from live.models import LiveEvent

pytestmark = pytest.mark.django_db


# --- bad input -----------------------------------------------------------------------
@pytest.mark.parametrize("body", ["", "   ", "\n\n"])
def test_it_refuses_an_empty_post_with_a_french_message(table: Any, thread: Any, body: str) -> None:
    with translation.override("fr"), pytest.raises(ValidationError) as exc:
        services.create_post(table.player, thread, body=body)
    assert exc.value.message_dict["body"] == ["Écrivez quelque chose : le message est vide."]
    assert thread.posts.count() == 1


def test_it_refuses_an_oversize_post(table: Any, thread: Any, settings: Any) -> None:
    settings.TABLEE_MAX_POST_LENGTH = 50
    with translation.override("fr"), pytest.raises(ValidationError) as exc:
        services.create_post(table.player, thread, body="x" * 51, roll_requests=[{"expression": "1d6"}])
    assert "51" in exc.value.message_dict["body"][0] and "50" in exc.value.message_dict["body"][0]
    assert thread.posts.count() == 1
    assert Roll.objects.count() == 0


def test_it_shows_field_errors_in_the_form_and_saves_nothing(client: Any, table: Any, thread: Any) -> None:
    client.force_login(table.player)
    response = client.post(
        reverse("campaigns:thread_reply", args=[thread.pk]),
        {"body": "Un jet", "visibility": "public", "rolls": "2d6+ Épée"},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "Expression de dés invalide" in html
    assert thread.posts.count() == 1 and Roll.objects.count() == 0


def test_it_refuses_a_whisper_without_addressees_or_to_outsiders(table: Any, thread: Any) -> None:
    with pytest.raises(ValidationError) as exc:
        services.create_post(table.player, thread, body="psst", visibility="whisper")
    assert "recipients" in exc.value.message_dict
    with pytest.raises(ValidationError) as exc:
        services.create_post(table.player, thread, body="psst", visibility="whisper", recipients=[table.outsider])
    assert "recipients" in exc.value.message_dict
    assert thread.posts.count() == 1


def test_it_refuses_someone_elses_character(table: Any, thread: Any) -> None:
    from characters.models import Character

    theirs = Character.objects.create(campaign=table.campaign, owner=table.player2, name="Corwin", system="ambre")
    with pytest.raises(ValidationError) as exc:
        services.create_post(table.player, thread, body="Je suis Corwin", character=theirs)
    assert "character" in exc.value.message_dict
    post = services.create_post(table.player2, thread, body="Je suis Corwin", character=theirs)
    assert post.character == theirs


def test_it_rate_limits_posting_with_a_clear_message(table: Any, thread: Any, settings: Any) -> None:
    settings.TABLEE_POST_RATE = "2/m"
    services.create_post(table.player, thread, body="un")
    services.create_post(table.player, thread, body="deux")
    with translation.override("fr"), pytest.raises(ValidationError) as exc:
        services.create_post(table.player, thread, body="trois")
    message = exc.value.message_dict["__all__"][0]
    assert "trop vite" in message and "2" in message
    assert thread.posts.count() == 3
    services.create_post(table.player2, thread, body="un autre membre n'est pas limité")


# --- numbering, pagination, unread -----------------------------------------------------
def _fill(table: Any, thread: Any, count: int, settings: Any) -> None:
    settings.TABLEE_POST_RATE = "0/m"
    for index in range(count):
        services.create_post(table.gm if index % 2 else table.player, thread, body=f"Message n°{index + 2}")


def test_it_numbers_posts_and_paginates_by_number(client: Any, table: Any, thread: Any, settings: Any) -> None:
    _fill(table, thread, 44, settings)  # 45 posts: pages of 20 → 3 pages
    assert list(thread.posts.order_by("number").values_list("number", flat=True)) == list(range(1, 46))
    client.force_login(table.player2)
    html = client.get(reverse("campaigns:thread", args=[thread.pk]) + "?page=2").content.decode()
    assert 'id="post-21"' in html and 'id="post-40"' in html
    assert 'id="post-20"' not in html and 'id="post-41"' not in html
    response = client.get(reverse("campaigns:thread", args=[thread.pk]) + "?n=42")
    assert response.status_code == 302 and response.url.endswith("?page=3#post-42")


def test_it_keeps_the_query_count_constant_across_pages(client: Any, table: Any, thread: Any, settings: Any) -> None:
    _fill(table, thread, 60, settings)
    services.create_post(table.player, thread, body="jet", roll_requests=[{"expression": "1d6"}])
    client.force_login(table.player2)
    client.get(reverse("campaigns:thread", args=[thread.pk]) + "?page=3")  # warm up: session, read marker row
    counts = []
    for page in (1, 2, 4):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse("campaigns:thread", args=[thread.pk]) + f"?page={page}").status_code == 200
        counts.append(len(queries))
    assert max(counts) - min(counts) <= 1, counts
    # Session, member (with profile, suspension, moderator flag, unread count), thread (with role, read marker,
    # scene), posts, rolls, whisper recipients, and the reply form's members and characters (#21: at most 8
    # reads; moving the read marker forward is one write more).
    reads = [q["sql"] for q in queries.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]
    assert len(reads) <= 8, reads


def test_it_tracks_unread_posts_and_jumps_to_the_first_one(client: Any, table: Any, thread: Any, settings: Any) -> None:
    _fill(table, thread, 24, settings)  # 25 posts
    client.force_login(table.player2)
    client.get(reverse("campaigns:thread", args=[thread.pk]) + "?page=1")
    assert ThreadRead.objects.get(user=table.player2, thread=thread).last_read_number == 20
    response = client.get(reverse("campaigns:thread_unread", args=[thread.pk]))
    assert response.url.endswith("?page=2#post-21")
    html = client.get(reverse("campaigns:thread", args=[thread.pk]) + "?page=2").content.decode()
    assert html.count("post-new") >= 5
    # Reading page 1 again never moves the marker back.
    client.get(reverse("campaigns:thread", args=[thread.pk]) + "?page=1")
    assert ThreadRead.objects.get(user=table.player2, thread=thread).last_read_number == 25


def test_it_marks_the_authors_own_post_read(table: Any, thread: Any) -> None:
    post = services.create_post(table.player, thread, body="le mien")
    assert ThreadRead.objects.get(user=table.player, thread=thread).last_read_number == post.number


# --- quote and reply ----------------------------------------------------------------------
def test_it_prefills_a_quote_and_notifies_the_replied_author(client: Any, table: Any, thread: Any) -> None:
    original = services.create_post(table.player, thread, body="Qui va là ?")
    client.force_login(table.player2)
    html = client.get(reverse("campaigns:post_quote", args=[original.pk])).content.decode()
    assert "&gt; Qui va là ?" in html
    response = client.post(
        reverse("campaigns:thread_reply", args=[thread.pk]),
        {"body": "> Qui va là ?\n\nC'est moi.", "visibility": "public", "reply_to": original.pk},
    )
    assert response.status_code == 302
    reply = Post.objects.get(thread=thread, number=3)
    assert reply.reply_to == original
    assert Notification.objects.filter(user=table.player, kind="reply", post=reply).count() == 1


def test_it_refuses_a_reply_to_a_post_of_another_thread(table: Any, thread: Any) -> None:
    other = services.create_thread(table.gm, thread.board, title="Autre", body="ailleurs")
    with pytest.raises(ValidationError):
        services.create_post(table.player, thread, body="x", reply_to=other.posts.first())


# --- notifications ---------------------------------------------------------------------------
def test_it_notifies_mentions_whispers_and_turns(table: Any, thread: Any) -> None:
    services.create_post(table.gm, thread, body="@player et @outsider, à vous", turn_for=[table.player2])
    services.create_post(table.player, thread, body="psst", visibility="whisper", recipients=[table.cogm])
    kinds = {(n.user.username, n.kind) for n in Notification.objects.select_related("user")}
    assert kinds == {("player", "mention"), ("player2", "turn"), ("cogm", "whisper")}


def test_it_does_not_notify_a_mention_in_a_post_the_person_cannot_see(table: Any, thread: Any) -> None:
    services.create_post(table.player, thread, body="Le MJ seul : @player2 est un traître", visibility="gm")
    assert not Notification.objects.filter(user=table.player2).exists()


def test_it_shows_the_badge_and_marks_read(client: Any, table: Any, thread: Any) -> None:
    services.create_post(table.gm, thread, body="@player regarde")
    client.force_login(table.player)
    html = client.get(reverse("campaigns:notifications")).content.decode()
    assert '<span class="badge"' in html
    client.post(reverse("campaigns:notifications"))
    assert not Notification.objects.filter(user=table.player, read_at__isnull=True).exists()


# --- live events ---------------------------------------------------------------------------------
def test_it_publishes_a_post_created_event_with_the_right_audience(table: Any, thread: Any) -> None:
    services.create_post(table.player, thread, body="public")
    services.create_post(table.player, thread, body="psst", visibility="whisper", recipients=[table.player2])
    events = list(LiveEvent.objects.filter(channel=f"thread:{thread.pk}", kind="post-created").order_by("id"))
    assert events[-2].audience == {}
    assert events[-1].audience == {"users": sorted([table.player.pk, table.player2.pk]), "gms": True}
    assert events[-1].data == {"thread": thread.pk, "number": 3}


def test_the_live_fragment_returns_only_visible_new_posts(client: Any, table: Any, thread: Any) -> None:
    services.create_post(table.player, thread, body="Visible par tous")
    services.create_post(table.player, thread, body="Réservé au MJ", visibility="gm")
    client.force_login(table.player2)
    html = client.get(reverse("campaigns:thread_new_posts", args=[thread.pk]) + "?after=1").content.decode()
    assert "Visible par tous" in html and "Réservé au MJ" not in html
    assert "after=3" in html or "after=2" in html


# --- search ------------------------------------------------------------------------------------------
def test_it_searches_only_what_the_user_may_see(client: Any, table: Any, thread: Any) -> None:
    services.create_post(table.player, thread, body="Le dragon dort sous la montagne")
    services.create_post(table.gm, thread, body="Le dragon est un traître (note MJ)", visibility="gm")
    client.force_login(table.player2)
    html = client.get(reverse("campaigns:search", args=[table.campaign.slug]) + "?q=dragon").content.decode()
    assert "dort sous la montagne" in html and "traître" not in html
    client.force_login(table.gm)
    html = client.get(reverse("campaigns:search", args=[table.campaign.slug]) + "?q=dragon").content.decode()
    assert "dort sous la montagne" in html and "traître" in html


def test_it_uses_french_and_english_full_text_search_on_postgresql(table: Any, thread: Any, settings: Any) -> None:
    if not settings.USING_POSTGRES:
        pytest.skip("PostgreSQL full-text search only (SQLite uses a substring match)")
    from campaigns.views import search_posts

    services.create_post(table.player, thread, body="Les chevaliers traversèrent la forêt.")
    services.create_post(table.player, thread, body="The knights were riding north.")
    assert [p.body for p in search_posts(table.player2, table.campaign, "chevalier")] == [
        "Les chevaliers traversèrent la forêt."
    ]
    assert [p.body for p in search_posts(table.player2, table.campaign, "ride")] == ["The knights were riding north."]
