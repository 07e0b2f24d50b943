"""The site's URLs plus two comparison views of the HTTP benchmark (``bench_thread_http.py``):

* ``/bench/floor/``: the floor of a member's page, the whole middleware stack for the logged-in
  member (session, member, language, time zone, suspension, CSRF, security headers,
  compression) and a view that renders nothing. ``/healthz`` is answered by the first middleware
  (before the session and the member are loaded), so it is the floor of the ASGI server and one
  query, not of a page;
* ``/bench/lean/<thread>/``: the same thread page written as lean as Django allows.
"""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template import engines
from django.urls import path

from config.urls import urlpatterns as site_urlpatterns

LEAN = engines["django"].from_string(
    """<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>{{ thread.title }}</title></head><body>
<h1>{{ thread.title }}</h1><ol class="posts">{% for post in posts %}<li id="post-{{ post.number }}" class="post">
<header><strong>{{ post.author.username }}</strong> <a href="?n={{ post.number }}">#{{ post.number }}</a>
<time>{{ post.created|date:"SHORT_DATETIME_FORMAT" }}</time></header><div class="body">{{ post.body_html|safe }}</div>
{% for roll in post.rolls.all %}<p class="roll">{{ roll.request.expression }} =
{{ roll.resolution.outcome.total }}</p>{% endfor %}
</li>{% endfor %}</ol></body></html>"""
)


def lean_thread(request: HttpRequest, thread_id: int) -> HttpResponse:
    """Posts 1–20 of a thread with their rolls: what a page shows, with none of the product around it."""
    from campaigns.models import Post, Thread

    thread = get_object_or_404(Thread, pk=thread_id)
    posts = list(
        Post.objects.filter(thread=thread, number__lte=20, visibility="public")
        .select_related("author")
        .prefetch_related("rolls")
        .order_by("number")
    )
    return HttpResponse(LEAN.render({"thread": thread, "posts": posts}, request))


def stack_floor(request: HttpRequest) -> HttpResponse:
    """Nothing but what every page of a member pays: the middleware stack with the member loaded."""
    return HttpResponse(b"ok" if request.user.is_authenticated else b"anonymous", content_type="text/html")


urlpatterns = [
    path("bench/floor/", stack_floor),
    path("bench/lean/<int:thread_id>/", lean_thread),
    *site_urlpatterns,
]
