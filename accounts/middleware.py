"""Speak to a logged-in member in the language of their profile."""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import translation

from accounts import services


class ProfileLanguageMiddleware:
    """Activate the profile's language for logged-in users.

    Runs after ``LocaleMiddleware`` (which handles anonymous visitors from the
    language cookie and ``Accept-Language``) and after authentication.
    The language menu (Django's ``set_language``) also saves the choice in
    the profile, otherwise the profile would win over the menu at once.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            if request.method == "POST" and request.path == reverse("set_language"):
                try:
                    services.set_language(user, request.POST.get("language", ""))
                except ValidationError:
                    pass  # Django's view ignores unknown languages too
                return self.get_response(request)  # a redirect: nothing to translate
            profile = getattr(user, "profile", None)
            if profile is not None and profile.language:
                translation.activate(profile.language)
                request.LANGUAGE_CODE = profile.language
        response = self.get_response(request)
        response.headers.setdefault("Content-Language", translation.get_language() or "fr")
        return response
