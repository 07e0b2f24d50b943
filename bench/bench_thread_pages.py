"""Benchmark: thread pages stay fast and constant in SQL queries as threads grow.

Builds threads of 10, 1,000 and 10,000 posts (some with rolls, whispers and
GM-only posts) and, for the first, a middle and the last page, reports the
number of SQL queries and the median time per page as a ratio to a minimal
page (``/healthz``) served by the same stack (Django test client: URL
routing, middleware, sessions, auth, templates) in the same run.

Usage::

    .venv/bin/python bench/bench_thread_pages.py            # temporary SQLite database
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/tablee_bench .venv/bin/python bench/bench_thread_pages.py

With ``DATABASE_URL`` the database is migrated and the benchmark's rows are
added to it (use a scratch database).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
if not os.environ.get("DATABASE_URL"):
    os.environ["TABLEE_SQLITE_PATH"] = os.path.join(tempfile.mkdtemp(prefix="tablee-bench-"), "bench.sqlite3")
os.environ.setdefault("TABLEE_POST_RATE", "0/m")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, reset_queries  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402

SIZES = (10, 1_000, 10_000)
REPEAT = int(os.environ.get("BENCH_REPEAT", "15"))


def build(size: int, cast: dict, prefix: str):
    from campaigns import services
    from campaigns.markup import render_markdown
    from campaigns.models import Post, Roll, Thread

    campaign = cast["campaign"]
    board = campaign.boards.first()
    thread = Thread.objects.create(board=board, campaign=campaign, title=f"{prefix} {size}", created_by=cast["gm"])
    body = "Je *traverse* la salle et **observe** les gardes. > Une phrase de plus pour un message réaliste.\n" * 3
    html = render_markdown(body)
    now = timezone.now()
    authors = [cast["gm"], cast["player"], cast["player2"]]
    posts = []
    for number in range(1, size + 1):
        visibility = "gm" if number % 17 == 0 else ("whisper" if number % 13 == 0 else "public")
        posts.append(
            Post(
                thread=thread,
                campaign=campaign,
                number=number,
                author=authors[number % 3],
                visibility=visibility,
                body=body,
                body_html=html,
            )
        )
    Post.objects.bulk_create(posts, batch_size=1000)
    Thread.objects.filter(pk=thread.pk).update(post_count=size, last_post_at=now)
    thread.refresh_from_db()
    # Every 10th post carries a roll (raw rows: the chain is not what is measured here).
    ids = dict(Post.objects.filter(thread=thread).values_list("number", "pk"))
    last = Roll.objects.filter(campaign=campaign).order_by("-sequence").values_list("sequence", flat=True).first() or 0
    rolls = []
    for offset, number in enumerate(range(10, size + 1, 10), start=1):
        rolls.append(
            Roll(
                campaign=campaign,
                sequence=last + offset,
                post_id=ids[number],
                roller=authors[number % 3],
                kind="expression",
                system="dice",
                request={"expression": "2d6+3"},
                resolution={"draws": [3, 5], "outcome": {"total": 11, "detail": "2d6 (3, 5) + 3 = 11"}},
                secret=number % 20 == 0,
                created=now,
                prev_hash="0" * 64,
                hash="0" * 64,
            )
        )
    Roll.objects.bulk_create(rolls, batch_size=1000)
    # A whisper addressed to the reader on each page keeps the recipients prefetch busy.
    whisper_ids = list(Post.objects.filter(thread=thread, visibility="whisper").values_list("pk", flat=True))
    Post.recipients.through.objects.bulk_create(
        [Post.recipients.through(post_id=pk, user_id=cast["player2"].pk) for pk in whisper_ids], batch_size=1000
    )
    services.mark_read(cast["player2"], thread, 1)
    return thread


def measure(client: Client, url: str) -> tuple[int, float]:
    client.get(url)  # warm up
    reset_queries()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    times = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        client.get(url)
        times.append(time.perf_counter() - start)
    return len(queries), statistics.median(times)


def main() -> None:
    from conftest import make_table

    call_command("migrate", verbosity=0)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    prefix = f"b{int(time.time()) % 100000}"
    table = make_table("altaride", prefix=prefix)
    cast = {"campaign": table.campaign, "gm": table.gm, "player": table.player, "player2": table.player2}
    client = Client()
    client.force_login(table.player2)  # a player: visibility rules (whispers, GM-only) apply

    base_queries, base_time = measure(client, "/healthz")
    print(f"database: {connection.vendor}; {REPEAT} timed requests per page (median)")
    print(f"baseline /healthz: {base_queries} queries, {base_time * 1000:.2f} ms")
    print()
    print(f"{'posts':>7} {'page':>6} {'number':>7} {'queries':>8} {'ms':>8} {'x baseline':>11}")
    all_counts = []
    for size in SIZES:
        started = time.perf_counter()
        thread = build(size, cast, prefix)
        built = time.perf_counter() - started
        from campaigns.views import POSTS_PER_PAGE

        pages = max(1, -(-size // POSTS_PER_PAGE))
        for label, page in (("first", 1), ("middle", max(1, pages // 2)), ("last", pages)):
            count, seconds = measure(client, f"/campaigns/threads/{thread.pk}/?page={page}")
            all_counts.append(count)
            print(f"{size:>7} {label:>6} {page:>7} {count:>8} {seconds * 1000:>8.2f} {seconds / base_time:>11.1f}")
        print(f"{'':>7} (built in {built:.1f} s)")
    print()
    spread = max(all_counts) - min(all_counts)
    print(
        f"queries per thread page: min {min(all_counts)}, max {max(all_counts)} (spread {spread}: "
        f"{'constant' if spread <= 1 else 'GROWS'})"
    )


if __name__ == "__main__":
    main()
