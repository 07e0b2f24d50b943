"""A suspended member may log in only to read the suspension notice.

* HTML pages (GET) redirect to the notice (``moderation:suspended``);
* every write (POST, PUT, PATCH, DELETE) is refused with 403 and a clear
  message: the notice page for HTML, ``{"detail": ..., "code": "suspended"}``
  for the API (``/api/``), which is refused for reads too;
* logging out, changing the interface language, static files and the data
  export stay possible.

API requests authenticated by token are not yet authenticated when the
middleware runs (DRF authenticates in the view): the middleware asks DRF's
non-session authentication classes who the caller is (:func:`config.api_user.api_user`).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils import formats
from django.utils.translation import gettext as _

from config.api_user import api_user
from moderation.models import Suspension, active_suspension

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def suspension_message(suspension: Suspension) -> str:
    if suspension.until is None:
        return _("Your account is suspended permanently: you can no longer write on this site.")
    return _("Your account is suspended until %(until)s: you cannot write on this site until then.") % {
        "until": formats.date_format(suspension.until, "DATETIME_FORMAT")
    }


#: Kept for callers of the former name (see :func:`config.api_user.api_user`).
_api_user = api_user


class SuspensionMiddleware:
    """Keep suspended members read-only on a notice (add after AuthenticationMiddleware)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    @staticmethod
    def _url(name: str) -> str | None:
        try:
            return reverse(name)
        except NoReverseMatch:
            return None

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path_info
        if path.startswith(("/" + settings.STATIC_URL.lstrip("/"), "/" + settings.MEDIA_URL.lstrip("/"))):
            return self.get_response(request)
        is_api = path.startswith("/api/")
        user = getattr(request, "user", None)
        suspension = None
        if user is not None and user.is_authenticated:
            # ``tablee_suspended`` is annotated by config.auth.load_user: no query when False.
            if getattr(user, "tablee_suspended", True):
                suspension = active_suspension(user)
        elif is_api:
            caller = api_user(request)
            # A token's member is loaded as a session's is (api/authentication.py): the same annotation.
            if caller is not None and getattr(caller, "tablee_suspended", True):
                suspension = active_suspension(caller)
        if suspension is None:
            return self.get_response(request)
        refusal = self.refuse(request, suspension, is_api=is_api)
        if refusal is not None:
            return refusal
        return self.get_response(request)

    def refuse(self, request: HttpRequest, suspension: Suspension, *, is_api: bool) -> HttpResponse | None:
        message = suspension_message(suspension)
        if is_api:
            return JsonResponse(
                {
                    "detail": message,
                    "code": "suspended",
                    "until": suspension.until.isoformat() if suspension.until else None,
                },
                status=403,
            )
        path = request.path_info
        notice = self._url("moderation:suspended")
        always = {self._url("account_logout"), self._url("set_language")}
        if path in always:
            return None
        if request.method in SAFE_METHODS:
            readable = {notice, self._url("moderation:my_data"), self._url("moderation:export")}
            if path in readable:
                return None
            return redirect(notice) if notice else HttpResponse(message, status=403)
        response = render(
            request,
            "moderation/suspended.html",
            {"suspension": suspension, "message": message, "refused": True},
            status=403,
        )
        return response
