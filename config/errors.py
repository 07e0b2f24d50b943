"""Error pages: the API's one JSON error format under ``/api/``, site-styled pages in the
reader's language elsewhere (``templates/404.html``, ``403.html``, ``500.html``).

Wired as ``handler400/403/404/500`` in :mod:`config.urls`. Under ``/api/`` they answer
what never reaches a DRF view or its exception handler: an unhandled exception (500), a
body larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (413) or another refused request (400),
a URL no route matches (404).

Pages: Django's default handlers render the templates, but under ASGI the error handler
may run outside the request's translation context (English on a French page). These
wrappers activate the request's language first: the one ``LocaleMiddleware`` chose, else
the cookie / ``Accept-Language`` (no database). The 500 page (503 while the database is away or too busy)
is rendered without a request context: no database, no context processor, no static file lookup.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, HttpResponseServerError, JsonResponse
from django.template import loader
from django.utils import translation
from django.utils.translation import gettext as _
from django.views import defaults
from django.views.decorators.csrf import requires_csrf_token


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith("/api/")


def request_language(request: HttpRequest) -> str:
    lang = getattr(request, "LANGUAGE_CODE", None)
    if not lang:
        try:
            lang = translation.get_language_from_request(request)
        except Exception:  # a broken request: the default language
            lang = None
    return lang or "fr"


def _json(code: str, detail: str, status: int) -> JsonResponse:
    return JsonResponse({"code": code, "detail": detail, "errors": []}, status=status)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    too_big = isinstance(exception, RequestDataTooBig)
    with translation.override(request_language(request)):
        if is_api(request):
            if too_big:
                return _json("too_large", _("The request body is too large."), 413)
            return _json("bad_request", _("Bad request."), 400)
        response = defaults.bad_request(request, exception)
    if too_big:
        response.status_code = 413
    return response


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    with translation.override(request_language(request)):
        if is_api(request):
            return _json("permission_denied", _("You do not have permission to do this."), 403)
        return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    with translation.override(request_language(request)):
        if is_api(request):
            return _json("not_found", _("Not found."), 404)
        return defaults.page_not_found(request, exception)


#: Seconds a reader is asked to wait before retrying while the database is away.
RETRY_AFTER = 15
#: ... and after the database was too busy to finish the request (a lock it waited for too long).
RETRY_AFTER_BUSY = 5

#: SQLSTATEs of a database that answered but could not finish the request now: a serialization
#: failure, a deadlock, a lock not available, a statement cancelled by its timeout. Retrying works.
BUSY_SQLSTATES = frozenset({"40001", "40P01", "55P03", "57014"})


def database_trouble() -> str | None:
    """What the exception being handled says of the database: ``"away"`` when it is out of reach (a
    refused or dropped connection, a pool that found none), ``"busy"`` when it answered but could not
    finish the request now (:data:`BUSY_SQLSTATES`, SQLite's "database is locked"), ``None`` when the
    error is not the database's (a bug of ours: a 500).

    Django calls the 500 handler while it handles the exception, so it is still current."""
    error = sys.exc_info()[1]
    if not isinstance(error, OperationalError | InterfaceError):  # Django wraps the pool's timeout too
        return None
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:  # the driver's error is the wrapper's cause
        if getattr(cause, "sqlstate", None) in BUSY_SQLSTATES or "database is locked" in str(cause):
            return "busy"
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return "away"


@requires_csrf_token
def server_error(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """500, or 503 with ``Retry-After`` while the database is away (a restart, a failover) or was too
    busy to finish the request (a deadlock, a lock timeout): the page says which, and that nothing was
    saved half-way; the API answers ``unavailable``."""
    trouble = database_trouble()
    retry_after = RETRY_AFTER_BUSY if trouble == "busy" else RETRY_AFTER
    with translation.override(request_language(request)):
        if is_api(request):
            if trouble:
                detail = (
                    _("The service was too busy to finish this request: try again in a moment.")
                    if trouble == "busy"
                    else _("The service is briefly unavailable: try again in a moment.")
                )
                response: HttpResponse = _json("unavailable", detail, 503)
                response["Retry-After"] = str(retry_after)
                return response
            return _json("server_error", _("Server error: it has been logged."), 500)
        try:
            body = loader.get_template("503.html" if trouble else "500.html").render(
                {
                    "LANGUAGE_CODE": translation.get_language(),
                    "busy": trouble == "busy",
                    "retry_after": retry_after,
                    "retry_url": request.get_full_path() if request.method in ("GET", "HEAD") else "/",
                }
            )
        except Exception:  # even the template failed: Django's bare page
            return defaults.server_error(request)
    if trouble:
        response = HttpResponse(body, status=503)
        response["Retry-After"] = str(retry_after)
        return response
    return HttpResponseServerError(body)
