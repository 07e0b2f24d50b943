"""``/healthz`` for load balancers, docker-compose and systemd probes.

Answered by the first middleware, before ``SecurityMiddleware``'s HTTPS
redirect and before any Host header validation: an internal probe
(``http://127.0.0.1:8000/healthz``) gets 200 as written, never 301 or 400.
It checks the database (``SELECT 1``) and answers 503 when it is away.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse

logger = logging.getLogger(__name__)
PATH = "/healthz"


class HealthCheckMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info.rstrip("/") != PATH:
            return self.get_response(request)
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
        except Exception as exc:  # the database is away: unhealthy, not a 500 page
            logger.warning("healthz: database unavailable (%s)", exc)
            return JsonResponse({"status": "unavailable", "database": "down"}, status=503)
        return JsonResponse({"status": "ok"})
