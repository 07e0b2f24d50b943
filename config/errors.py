"""Error pages: the API's one JSON error format under ``/api/``, Django's pages elsewhere.

Wired as ``handler400/403/404/500`` in :mod:`config.urls`. They catch what never
reaches a DRF view or its exception handler: an unhandled exception (500), a
body larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (413) or another refused
request (400), a URL no route matches (404).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.views import defaults


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith("/api/")


def _json(code: str, detail: str, status: int) -> JsonResponse:
    return JsonResponse({"code": code, "detail": detail, "errors": []}, status=status)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    too_big = isinstance(exception, RequestDataTooBig)
    if is_api(request):
        if too_big:
            return _json("too_large", _("The request body is too large."), 413)
        return _json("bad_request", _("Bad request."), 400)
    if too_big:
        response = defaults.bad_request(request, exception)
        response.status_code = 413
        return response
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api(request):
        return _json("permission_denied", _("You do not have permission to do this."), 403)
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api(request):
        return _json("not_found", _("Not found."), 404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    if is_api(request):
        return _json("server_error", _("Server error: it has been logged."), 500)
    return defaults.server_error(request)
