"""Site-styled error pages in the reader's language (``templates/404.html``, ``403.html``, ``500.html``).

Django's default handlers render these templates, but under ASGI the error
handler may run outside the request's translation context (English on a
French page). These wrappers activate the request's language first: the one
``LocaleMiddleware`` chose, else the cookie / ``Accept-Language`` (no database).
The 500 page is rendered without a request context: no database, no
context processor, no static file lookup (``templates/500.html`` is self-contained).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseServerError
from django.template import loader
from django.utils import translation
from django.views import defaults
from django.views.decorators.csrf import requires_csrf_token


def request_language(request: HttpRequest) -> str:
    lang = getattr(request, "LANGUAGE_CODE", None)
    if not lang:
        try:
            lang = translation.get_language_from_request(request)
        except Exception:  # a broken request: the default language
            lang = None
    return lang or "fr"


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    with translation.override(request_language(request)):
        return defaults.page_not_found(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    with translation.override(request_language(request)):
        return defaults.permission_denied(request, exception)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    with translation.override(request_language(request)):
        return defaults.bad_request(request, exception)


@requires_csrf_token
def server_error(request: HttpRequest) -> HttpResponse:
    with translation.override(request_language(request)):
        try:
            body = loader.get_template("500.html").render({"LANGUAGE_CODE": translation.get_language()})
        except Exception:  # even the template failed: Django's bare page
            return defaults.server_error(request)
    return HttpResponseServerError(body)
