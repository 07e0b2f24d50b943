"""The posts' HTML kept per content (campaigns.post_html): never served to another reader, never stale.

Each test reads a page once (the fragments are kept), changes something, and reads it again; and
a warm page must equal the page rendered with nothing kept, for every role.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from campaigns import post_html, services
from campaigns.models import Notification, Post
from campaigns.tests.fairness import nonce_giving
from config import auth
from config.prepared import PreparedQuery
from conftest import make_table, make_user
from moderation import services as moderation_services
from moderation.models import Suspension

pytestmark = pytest.mark.django_db

GM_ONLY_TEXT = "Le traître est le chambellan"
WHISPER_TEXT = "Psst, la clef est sous la pierre"


def _client(user: Any, language: str = "fr") -> Client:
    client = Client()
    client.force_login(user)
    user.profile.language = language
    user.profile.save()
    return client


def _posts_html(client: Client, thread: Any, page: int = 1) -> str:
    """The posts list of a thread page, CSRF tokens (masked anew on each response) replaced by a mark."""
    response = client.get(reverse("campaigns:thread", args=[thread.pk]) + f"?page={page}")
    assert response.status_code == 200
    html = response.content.decode()
    posts = html[html.index('<ol class="posts"') : html.index("</ol>", html.index('<ol class="posts"'))]
    assert "\x00" not in html
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', 'name="csrfmiddlewaretoken" value="T"', posts)


@pytest.fixture
def scene() -> Any:
    table = make_table("ambre", prefix="ph")
    board = table.campaign.boards.first()
    thread = services.create_thread(table.gm, board, title="La cour", body="Le roi vous reçoit.")
    services.create_post(table.player, thread, body="Je m'incline.", roll_requests=[{"expression": "2d6"}])
    services.create_post(table.gm, thread, body=GM_ONLY_TEXT, visibility=Post.Visibility.GM_ONLY)
    services.create_post(
        table.player, thread, body=WHISPER_TEXT, visibility=Post.Visibility.WHISPER, recipients=[table.player2]
    )
    services.create_post(table.gm, thread, body="Jet caché.", roll_requests=[{"expression": "1d20", "secret": True}])
    return table, thread


def test_a_warm_page_equals_a_page_rendered_from_scratch_for_every_role(scene: Any) -> None:
    table, thread = scene
    for name, user in table.users().items():
        if name == "outsider":
            continue  # a private campaign: 404 (the visibility table covers it)
        client = _client(user)
        _posts_html(client, thread)  # marks the posts read: the next reads see no "new" badge
        post_html.FRAGMENTS.clear()
        cold = _posts_html(client, thread)
        warm = _posts_html(client, thread)
        assert warm == cold, name
        assert len(post_html.FRAGMENTS.items) == warm.count('<li class="post card'), name


def test_a_gm_only_post_or_a_whisper_kept_for_one_reader_is_never_served_to_another(scene: Any) -> None:
    table, thread = scene
    post_html.FRAGMENTS.clear()
    gm_page = _posts_html(_client(table.gm), thread)  # the GM's fragments are kept first
    assert GM_ONLY_TEXT in gm_page and WHISPER_TEXT in gm_page and "roll-secret" in gm_page
    addressee = _posts_html(_client(table.player2), thread)
    assert WHISPER_TEXT in addressee and GM_ONLY_TEXT not in addressee and "roll-secret" not in addressee
    assert "Masquer" not in addressee and "/edit/" not in addressee.split(WHISPER_TEXT)[1].split("</li>")[0]
    for user in (table.spectator, table.cogm, table.player):
        page = _posts_html(_client(user), thread)
        assert (GM_ONLY_TEXT in page) == (user == table.cogm)
        assert (WHISPER_TEXT in page) == (user in (table.cogm, table.player))
        assert ("roll-secret" in page) == (user == table.cogm)
    # The GM again: the controls only GMs get are still theirs.
    assert _posts_html(_client(table.gm), thread) == gm_page


def test_an_edited_post_is_never_served_stale(scene: Any) -> None:
    table, thread = scene
    post = thread.posts.get(number=2)
    readers = [_client(table.player), _client(table.player2), _client(table.gm)]
    for client in readers:
        assert "Je m'incline." in _posts_html(client, thread)
    services.edit_post(table.player, post, body="Je m'agenouille.")
    for client in readers:
        page = _posts_html(client, thread)
        assert "Je m'agenouille." in page and "Je m'incline." not in page and "modifié" in page


def test_a_hidden_post_shows_at_once_and_a_moderators_hide_locks_the_gm_out(scene: Any) -> None:
    table, thread = scene
    post = thread.posts.get(number=2)
    player2, gm = _client(table.player2), _client(table.gm)
    assert "Je m'incline." in _posts_html(player2, thread)
    assert "Je m'incline." in _posts_html(gm, thread)
    services.hide_post(table.gm, post, reason="hors sujet")
    page = _posts_html(player2, thread)
    assert "Je m'incline." not in page and "masqué par la modération" in page
    page = _posts_html(gm, thread)
    assert "Je m'incline." in page and "hors sujet" in page and "Réafficher" in page
    # Shown again by the GM, then hidden by a moderator: the GM reads it but may not lift it.
    services.hide_post(table.gm, post, hidden=False)
    assert "Je m'incline." in _posts_html(player2, thread)
    moderation_services.hide_post(table.moderator, post, reason="insulte")
    assert "Je m'incline." not in _posts_html(player2, thread)
    page = _posts_html(gm, thread)
    item = page[page.index('id="post-2"') : page.index('id="post-3"')]
    assert "insulte" in item and 'name="hidden" value="0"' not in item


def test_a_roll_read_again_shows_at_once() -> None:
    table = make_table("clefs-de-l-aube", prefix="phnd")
    thread = services.create_thread(table.gm, table.campaign.boards.first(), title="La tour", body="Le vent.")
    test = {"kind": "action", "aspect": 3, "means": 2, "skill_nc": 12, "nd_hidden": True}
    nonce = nonce_giving(table.campaign, {"system_test": test}, [5])
    post = services.create_post(
        table.gm, thread, body="J'escalade.", roll_requests=[{"system_test": test}], client_nonce=nonce
    )
    clients = [_client(table.gm), _client(table.player)]
    for client in clients:
        assert "ND 5 non atteint" not in _posts_html(client, thread)
    services.set_roll_difficulty(table.gm, post.rolls.get(), difficulty=5)
    for client in clients:
        assert "ND 5 non atteint" in _posts_html(client, thread)


def test_a_language_switch_and_a_new_display_name_show_at_once(scene: Any) -> None:
    table, thread = scene
    client = _client(table.player2)
    page = _posts_html(client, thread)
    assert "Citer / répondre" in page and "Quote / reply" not in page
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    page = _posts_html(client, thread)
    assert "Quote / reply" in page and "Citer / répondre" not in page
    table.player.profile.display_name = "Iris la Rousse"
    table.player.profile.save()
    assert "Iris la Rousse" in _posts_html(client, thread)


def test_the_per_request_values_are_this_request_s(scene: Any) -> None:
    """The CSRF token of the post's forms works, and "Report" returns to the page it was on."""
    table, thread = scene
    client = Client(enforce_csrf_checks=True)
    client.force_login(table.gm)
    for _ in range(2):  # cold, then warm
        html = client.get(reverse("campaigns:thread", args=[thread.pk]) + "?page=1").content.decode()
    token = re.search(
        r'action="/moderation/posts/(\d+)/visibility/"[^>]*>\s*'
        r'<input type="hidden" name="csrfmiddlewaretoken" value="([^"]+)"',
        html,
    )
    assert token is not None
    response = client.post(
        reverse("moderation:post_visibility", args=[int(token.group(1))]),
        {"hidden": "1", "reason": "test", "csrfmiddlewaretoken": token.group(2)},
    )
    assert response.status_code == 302
    assert Post.objects.get(pk=int(token.group(1))).hidden
    player = _client(table.player2)
    page = player.get(reverse("campaigns:thread", args=[thread.pk]) + "?page=1").content.decode()
    assert f"?next=/campaigns/threads/{thread.pk}/%3Fpage%3D1" in page


def test_the_page_reads_the_same_queries_with_or_without_whispers(scene: Any, settings: Any) -> None:
    table, thread = scene
    settings.TABLEE_POST_RATE = "0/m"
    for n in range(40):  # page 2 and 3: no whisper
        services.create_post(table.gm, thread, body=f"Suite {n}.")
    client = _client(table.player2)
    counts = []
    for page in (1, 2, 3, 1):
        client.get(reverse("campaigns:thread", args=[thread.pk]) + f"?page={page}")
        with CaptureQueriesContext(connection) as queries:
            client.get(reverse("campaigns:thread", args=[thread.pk]) + f"?page={page}")
        counts.append(sum(q["sql"].lstrip().upper().startswith("SELECT") for q in queries.captured_queries))
    assert len(set(counts)) == 1 and counts[0] <= 8, counts


# ---------------------------------------------------------------------------
# The member loaded once per request, from a query compiled once (config.prepared)
# ---------------------------------------------------------------------------
def test_the_prepared_member_carries_what_the_orm_would(scene: Any) -> None:
    table, _thread = scene
    group = Group.objects.create(name="modos")
    group.permissions.add(Permission.objects.get(codename="moderate"))
    by_group = make_user("phbygroup")
    by_group.groups.add(group)
    Notification.objects.create(user=table.player2, kind="mention", campaign=table.campaign, text="@joueuse")
    Suspension.objects.create(user=table.player, reason="spam", until=timezone.now() + datetime.timedelta(days=1))
    Suspension.objects.create(user=table.spectator, reason="vieux", until=timezone.now() - datetime.timedelta(days=1))
    for user in (table.gm, table.player, table.player2, table.spectator, table.moderator, by_group):
        loaded = auth.load_user(user.pk)
        expected = auth._member_query(user.pk, timezone.now()).get()
        for attr in ("pk", "username", "tablee_moderate_perm", "tablee_unread", "tablee_suspended"):
            assert getattr(loaded, attr) == getattr(expected, attr), (user.username, attr)
        assert loaded.profile.pk == user.profile.pk
    assert auth.load_user(by_group.pk).tablee_moderate_perm and auth.load_user(table.moderator.pk).tablee_moderate_perm
    assert auth.load_user(table.player.pk).tablee_suspended and not auth.load_user(table.spectator.pk).tablee_suspended
    assert auth.load_user(table.player2.pk).tablee_unread == Notification.objects.filter(user=table.player2).count() > 0
    assert auth.load_user(10**12) is None and auth.load_user("nope") is None
    assert list(auth._LOAD._shapes.values()) != [None]  # prepared, not the ORM's path each time


def test_a_query_whose_text_depends_on_a_value_is_never_prepared(scene: Any) -> None:
    """A shape that changes with the values (here an ``IN`` list) falls back to the ORM: same rows."""
    _table, thread = scene
    from campaigns.models import Post as PostModel

    query = PreparedQuery(
        lambda thread_id, upto: PostModel.objects.filter(thread_id=thread_id, number__in=list(range(1, 2 - upto))),
        {"thread_id": (910_000_001, 920_000_002), "upto": (-3, -5)},
    )
    rows = query.all(thread_id=thread.pk, upto=-2)  # numbers 1 to 3
    assert sorted(p.number for p in rows) == [1, 2, 3]
    assert list(query._shapes.values()) == [None]
    prepared = PreparedQuery(
        lambda thread_id, upto: PostModel.objects.filter(thread_id=thread_id, number__lte=upto).select_related(
            "author__profile"
        ),
        {"thread_id": (910_000_001, 920_000_002), "upto": (930_000_003, 940_000_004)},
    )
    rows = prepared.all(thread_id=thread.pk, upto=3)
    assert sorted(p.number for p in rows) == [1, 2, 3] and rows[0].author.profile.pk
    assert list(prepared._shapes.values()) != [None]


def test_a_prepared_query_converts_values_the_same_on_every_connection(transactional_db: Any) -> None:
    """The converters and object builders found on the first run serve the next runs, on other
    connections (under ASGI each request has its own): JSON, times and related objects as the ORM's."""
    import threading

    from characters.models import Character
    from conftest import make_table

    table = make_table("altaride", prefix="pc")
    for n in range(3):
        Character.objects.create(
            campaign=table.campaign, owner=table.player, name=f"C{n}", system="altaride", sheet={"n": n, "tags": ["a"]}
        )
    query = PreparedQuery(
        lambda campaign_id: Character.objects.filter(campaign_id=campaign_id)
        .select_related("owner__profile")
        .order_by("pk"),
        {"campaign_id": (910_000_001, 920_000_002)},
    )

    def seen(rows: list[Any]) -> list[Any]:
        return [(c.pk, c.sheet, c.created, c.owner.username, c.owner.profile.pk) for c in rows]

    expected = seen(
        list(Character.objects.filter(campaign=table.campaign).select_related("owner__profile").order_by("pk"))
    )
    assert seen(query.all(campaign_id=table.campaign.pk)) == expected
    assert list(query._shapes.values()) != [None]
    got: list[Any] = []

    def elsewhere() -> None:
        from django.db import connection

        try:
            got.append(seen(query.all(campaign_id=table.campaign.pk)))
        finally:
            connection.close()

    for _ in range(2):
        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join(30)
    assert got == [expected, expected]
    assert isinstance(expected[0][1], dict) and expected[0][2].tzinfo is not None
