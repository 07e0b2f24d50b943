"""Speak to a logged-in member in the language of their profile."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import translation


class ProfileLanguageMiddleware:
    """Activate the profile's language for logged-in users.

    Runs after ``LocaleMiddleware`` (which handles anonymous visitors from the
    language cookie and ``Accept-Language``) and after authentication.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            profile = getattr(user, "profile", None)
            if profile is not None and profile.language:
                translation.activate(profile.language)
                request.LANGUAGE_CODE = profile.language
        response = self.get_response(request)
        response.headers.setdefault("Content-Language", translation.get_language() or "fr")
        return response
