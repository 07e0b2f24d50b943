"""The thread page's cost for a member (#21): at most 8 queries, the same at 10 and 100 posts; a page of
posts read through the prepared queries equals the ORM's for every role; the reply form kept per
content equals a form rendered from scratch and is never served to another reader nor stale."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.template.loader import get_template
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns import post_html, services
from campaigns.models import Membership, Post, Role
from campaigns.reads import page_posts, post_recipients, post_rolls, thread_posts
from campaigns.views.postform import _form_inputs, _post_form
from conftest import make_table, make_user
from moderation import services as moderation_services

pytestmark = pytest.mark.django_db


def _thread_of(table: Any, size: int, settings: Any) -> Any:
    """A thread of ``size`` posts with whispers, GM-only posts, rolls (a secret one) and a hidden post."""
    settings.TABLEE_POST_RATE = "0/m"
    board = table.campaign.boards.first()
    thread = services.create_thread(table.gm, board, title=f"Fil {size}", body="Ouverture.")
    for n in range(2, size + 1):
        author = (table.gm, table.player, table.player2)[n % 3]
        kwargs: dict[str, Any] = {}
        if n % 7 == 0:
            addressee = table.player if author == table.player2 else table.player2
            kwargs = {"visibility": Post.Visibility.WHISPER, "recipients": [addressee]}
        elif n % 11 == 0:
            kwargs = {"visibility": Post.Visibility.GM_ONLY}
        if n % 5 == 0:
            kwargs["roll_requests"] = [{"expression": "2d6", "secret": n % 10 == 0}]
        services.create_post(author, thread, body=f"Message {n}.", **kwargs)
    moderation_services.hide_post(table.moderator, Post.objects.get(thread=thread, number=3), reason="hors sujet")
    return thread


def _page_queries(client: Client, thread: Any, page: int) -> int:
    url = reverse("campaigns:thread", args=[thread.pk]) + f"?page={page}"
    client.get(url)  # marks the page read: the measured request writes nothing
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries.captured_queries)


def test_a_member_s_thread_page_costs_at_most_8_queries_the_same_at_10_and_100_posts(settings: Any) -> None:
    table = make_table("altaride", prefix="tq")
    small, large = _thread_of(table, 10, settings), _thread_of(table, 100, settings)
    for user in (table.player2, table.gm):
        client = Client()
        client.force_login(user)
        counts = [
            _page_queries(client, small, 1),
            _page_queries(client, large, 1),
            _page_queries(client, large, 3),
            _page_queries(client, large, 5),
        ]
        assert counts[0] <= 8, (user.username, counts)
        assert len(set(counts)) == 1, (user.username, counts)


def test_the_prepared_page_of_posts_equals_the_orm_s_for_every_reader(settings: Any) -> None:
    table = make_table("ambre", prefix="tp")
    thread = _thread_of(table, 45, settings)
    readers = [*table.users().values(), AnonymousUser()]
    table.campaign.is_public = True
    table.campaign.save()
    for reader in readers:
        for first, last in ((1, 20), (21, 40), (41, 60)):
            expected = list(thread_posts(reader, thread).filter(number__gte=first, number__lte=last).order_by("number"))
            got = page_posts(reader, thread, first, last)

            def shape(posts: list[Post]) -> list[tuple[Any, ...]]:
                return [
                    (
                        p.pk,
                        p.number,
                        p.visibility,
                        p.hidden,
                        p.body_html,
                        p.author.profile.name,
                        [r.pk for r in post_rolls(p)],
                        sorted(u.pk for u in post_recipients(p)),
                    )
                    for p in posts
                ]

            assert shape(got) == shape(expected), (getattr(reader, "username", "anonymous"), first)
    # A GM-only post and a whisper never reach a reader who may not see them.
    spectator_posts = page_posts(table.spectator, thread, 1, 45)
    assert all(p.visibility == Post.Visibility.PUBLIC for p in spectator_posts)


def _normalise(html: str) -> str:
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', 'name="csrfmiddlewaretoken" value="T"', html)
    return re.sub(r'name="once" value="[^"]+"', 'name="once" value="O"', html)


def _reply_form_html(client: Client, thread: Any, query: str = "") -> str:
    response = client.get(reverse("campaigns:thread", args=[thread.pk]) + query)
    assert response.status_code == 200
    html = response.content.decode()
    assert "\x00" not in html
    start = html.index('<div id="reply-form">')
    return html[start : html.index("</section>", start)]


def test_the_kept_reply_form_equals_a_form_rendered_from_scratch(settings: Any) -> None:
    table = make_table("altaride", prefix="tf")
    thread = _thread_of(table, 3, settings)
    for user in (table.gm, table.cogm, table.player, table.player2):
        client = Client()
        client.force_login(user)
        post_html.FORMS.clear()
        cold = _reply_form_html(client, thread)
        warm = _reply_form_html(client, thread)
        assert _normalise(warm) == _normalise(cold), user.username
        request = RequestFactory().get("/")
        request.user = user
        form = _post_form(request, table.campaign)
        fresh = get_template("campaigns/partials/post_form.html").render(
            {"form": form, "thread": thread, "campaign": table.campaign, "csrf_token": "T"}
        )
        assert _normalise(fresh).strip() in _normalise(warm), user.username
        # The one-time token is new on each page (a kept form never replays a token).
        tokens = re.findall(r'name="once" value="([^"]+)"', cold + warm)
        assert len(tokens) == 2 and tokens[0] != tokens[1], user.username


def test_a_kept_reply_form_is_never_another_reader_s_nor_stale(settings: Any) -> None:
    table = make_table("altaride", prefix="tg")
    thread = _thread_of(table, 3, settings)
    post_html.FORMS.clear()
    gm = Client()
    gm.force_login(table.gm)
    player = Client()
    player.force_login(table.player2)
    gm_form = _reply_form_html(gm, thread)
    player_form = _reply_form_html(player, thread)
    assert 'name="turn_for"' in gm_form and 'name="turn_for"' not in player_form
    # A new member is at once among the whisper's addressees, a renamed one under their new name.
    newcomer = make_user("tgnewcomer")
    Membership.objects.create(campaign=table.campaign, user=newcomer, role=Role.PLAYER)
    assert f'value="{newcomer.pk}"' in _reply_form_html(player, thread)
    table.player.profile.display_name = "Dame Ysolde"
    table.player.profile.save()
    assert "Dame Ysolde" in _reply_form_html(player, thread)
    # The language of the page is the form's.
    table.player2.profile.language = "en"
    table.player2.profile.save()
    assert "Whisper to" in _reply_form_html(player, thread)
    # A bound form (an error to fix) is never kept: the member's text is theirs alone.
    kept = len(post_html.FORMS.items)
    response = player.post(
        reverse("campaigns:thread_reply", args=[thread.pk]), {"body": "Mon brouillon secret", "visibility": "nope"}
    )
    assert response.status_code == 400 and "Mon brouillon secret" in response.content.decode()
    assert len(post_html.FORMS.items) == kept
    assert not any("Mon brouillon secret" in html for html in post_html.FORMS.items.values())


def test_a_kept_reply_form_is_not_built_again_and_follows_the_sheet_and_the_settings(
    settings: Any, monkeypatch: Any
) -> None:
    """The thread page takes a kept reply form without making a PostForm; a change to what the form is
    made of (the character's sheet the test reads, the campaign's settings) makes it afresh."""
    from campaigns.forms import PostForm
    from characters.models import Character

    table = make_table("altaride", prefix="tk")
    thread = _thread_of(table, 3, settings)
    system = table.campaign.rule_system
    sheet = system.default_sheet()
    sheet["talents"] = {**sheet.get("talents", {}), "HAB": 12}
    hero = Character.objects.create(
        campaign=table.campaign, owner=table.player2, name="Iris", system=system.slug, status="approved", sheet=sheet
    )
    built: list[int] = []
    made = PostForm.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        built.append(1)
        made(self, *args, **kwargs)

    monkeypatch.setattr(PostForm, "__init__", counting)
    post_html.FORMS.clear()
    post_html.FORM_KEYS.clear()
    client = Client()
    client.force_login(table.player2)
    query = f"?character={hero.pk}&test=talent:HAB"
    first = _reply_form_html(client, thread, query)
    assert len(built) == 1 and ">12<" in first.replace(" ", "")
    second = _reply_form_html(client, thread, query)
    assert len(built) == 1, "a kept form was built again"
    assert _normalise(second) == _normalise(first)
    # Another test asked for: another form.
    _reply_form_html(client, thread)
    assert len(built) == 2
    # The sheet changes (as any write does): the form reads the new value.
    hero.sheet = {**hero.sheet, "talents": {**hero.sheet["talents"], "HAB": 15}}
    hero.save()
    third = _reply_form_html(client, thread, query)
    assert len(built) == 3 and ">15<" in third.replace(" ", "") and ">12<" not in third.replace(" ", "")
    # The campaign's settings change: made afresh too.
    table.campaign.system_settings = {**(table.campaign.system_settings or {}), "starting_xp": 7}
    table.campaign.save()
    _reply_form_html(client, thread, query)
    assert len(built) == 4


def test_the_sheet_page_reads_the_reader_s_role_with_the_character() -> None:
    """The owner's sheet page: the role in the campaign and the owner's profile come with the character
    (no query of their own), and what the owner may not see stays hidden from an outsider."""
    from characters.models import Character

    table = make_table("altaride", prefix="ts")
    system = table.campaign.rule_system
    hero = Character.objects.create(
        campaign=table.campaign,
        owner=table.player2,
        name="Iris",
        system=system.slug,
        status="approved",
        sheet=system.default_sheet(),
    )
    url = reverse("characters:detail", args=[hero.pk])
    client = Client()
    client.force_login(table.player2)
    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    sql = [q["sql"] for q in queries.captured_queries]
    assert not any(s.lstrip().startswith('SELECT "campaigns_membership"."role"') for s in sql), sql
    assert not any(s.lstrip().startswith('SELECT "accounts_profile"') for s in sql), sql
    assert len(sql) <= 10, sql
    outsider = Client()
    outsider.force_login(table.outsider)
    assert outsider.get(url).status_code == 404


def test_a_prepared_query_is_compiled_once_for_every_request_thread(monkeypatch: Any) -> None:
    """Under ASGI each request runs in a thread of its own with a connection object of its own: the
    member's query is compiled once for them all, and each thread reads the right member."""
    import threading

    from django.db import connections

    from config import auth
    from config.prepared import PreparedQuery

    member = make_user("tcmember")
    prepares = []
    original = PreparedQuery._prepare

    def counted(self: Any, connection: Any) -> Any:
        prepares.append(connection)
        return original(self, connection)

    monkeypatch.setattr(PreparedQuery, "_prepare", counted)
    auth._LOAD.reset()
    found: list[Any] = []

    def request_thread() -> None:
        try:
            found.append(auth.load_user(member.pk))
        finally:
            connections.close_all()

    for _ in range(3):
        worker = threading.Thread(target=request_thread)
        worker.start()
        worker.join()
    found.append(auth.load_user(member.pk))
    assert len(prepares) == 1
    assert len({id(c) for c in prepares}) == 1
    assert found[-1] is not None and found[-1].pk == member.pk
    assert list(auth._LOAD._shapes.values()) != [None]


def test_the_reply_form_addresses_the_other_members_by_name_in_joining_order() -> None:
    table = make_table("sms", prefix="tm")
    request = RequestFactory().get("/")
    request.user = table.player2
    table.player.profile.display_name = "Dame Ysolde"
    table.player.profile.save()
    table.cogm.profile.delete()  # a member without a profile reads its username
    members = _form_inputs(request, table.campaign).members
    joined = Membership.objects.filter(campaign=table.campaign).order_by("pk").values_list("user_id", flat=True)
    assert [pk for pk, _ in members] == [pk for pk in joined if pk != table.player2.pk]  # never the reader
    names = dict(members)
    assert names[table.player.pk] == "Dame Ysolde"
    assert names[table.cogm.pk] == table.cogm.username and names[table.gm.pk] == table.gm.username
