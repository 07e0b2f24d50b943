"""DRF authentication with personal API tokens (``Authorization: Token <key>``)."""

from __future__ import annotations

from typing import Any

from django.utils import translation
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from api import services
from api.models import ApiToken, digest_key
from config.api_user import remembered
from config.auth import load_user
from config.prepared import PreparedQuery

KEYWORDS = (b"token", b"bearer")

#: An unrevoked token by its key's digest, compiled once per process (config.prepared).
_LIVE_TOKEN = PreparedQuery(
    lambda digest: ApiToken.objects.filter(digest=digest, revoked_at__isnull=True),
    {"digest": ("tablee-probe-digest-one", "tablee-probe-digest-two")},
)


class PersonalTokenAuthentication(BaseAuthentication):
    """``Authorization: Token <key>`` or ``Authorization: Bearer <key>``.

    A revoked token, an unknown key or an inactive account answer 401. The
    member's profile language is activated, like the middleware does for
    browser sessions.
    """

    keyword = "Token"

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        found = remembered(request._request, type(self), lambda: self._find(request))
        if found is not None:
            user, _token = found
            profile = getattr(user, "profile", None)
            if profile is not None and profile.language:
                translation.activate(profile.language)
                request._request.LANGUAGE_CODE = profile.language
        return found

    def _find(self, request: Request) -> tuple[Any, ApiToken] | None:
        """The token's member and the token (once per request: the middleware asked first)."""
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() not in KEYWORDS:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(_("Invalid token header."), code="invalid_token_header")
        try:
            key = parts[1].decode("ascii")
        except UnicodeDecodeError as exc:
            raise exceptions.AuthenticationFailed(_("Invalid token."), code="invalid_token") from exc
        token = _LIVE_TOKEN.first(digest=digest_key(key))
        # The member as a browser session loads them (config.auth.load_user): their profile and the
        # facts every request asks (moderator, suspended, unread) in one query, not three more.
        user = load_user(token.user_id) if token is not None else None
        if token is None or user is None or not user.is_active:
            raise exceptions.AuthenticationFailed(_("Invalid or revoked token."), code="invalid_token")
        token.user = user
        services.touch_token(token)
        return user, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
