"""Response headers that harden every page and API answer.

* :class:`ContentSecurityPolicyMiddleware`: a strict ``Content-Security-Policy``
  on every response (pages, fragments, ``/api/docs/``, ``/api/redoc/``, errors):
  scripts, styles, images, fonts and connections from this origin only, no
  inline script or style (but the ``<style>`` elements Redoc's style engine writes
  with this response's nonce, ``request.csp_nonce``), no ``eval`` (htmx is configured without it in
  ``templates/base.html``), no framing. ``TABLEE_CSP`` replaces the policy.
* :class:`ApiCacheHeadersMiddleware`: an API answer depends on who asks, so it
  carries ``Vary: Authorization``; one authenticated by a token (an
  ``Authorization`` header) is ``Cache-Control: private`` too, so no shared
  cache keeps one member's data for another.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control, patch_vary_headers

DEFAULT_CSP = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        # The nonce is new on every response; only /api/redoc/ hands it to its style engine.
        "style-src 'self' 'nonce-{nonce}'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)


#: /api/redoc/ only: the stylesheet Redoc's bundle writes as it loads (perfect-scrollbar, by
#: hash: drf-spectacular-sidecar's pinned bundle; and the empty <style> its style engine starts
#: with), its search worker (a blob: worker) and the Redocly logo its sidebar loads from a
#: fixed address (an image only).
REDOC_EXTRA = {
    "img-src": "https://cdn.redoc.ly",
    "style-src": (
        "'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc=' 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
    ),
    "worker-src": "'self' blob:",
}


def content_security_policy() -> str:
    return getattr(settings, "TABLEE_CSP", "") or DEFAULT_CSP


def with_extra(policy: str, extra: dict[str, str]) -> str:
    """``policy`` with sources added to some directives (the directive is created if absent)."""
    directives = [d.strip() for d in policy.split(";") if d.strip()]
    out = []
    for directive in directives:
        name = directive.split()[0]
        out.append(f"{directive} {extra[name]}" if name in extra else directive)
    out += [f"{name} {sources}" for name, sources in extra.items() if not any(d.split()[0] == name for d in directives)]
    return "; ".join(out)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.policy = content_security_policy()
        self.redoc_policy = with_extra(self.policy, REDOC_EXTRA)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.csp_nonce = secrets.token_urlsafe(16)  # type: ignore[attr-defined]
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            policy = self.redoc_policy if request.path_info == "/api/redoc/" else self.policy
            response["Content-Security-Policy"] = policy.replace("{nonce}", request.csp_nonce)  # type: ignore[attr-defined]
        return response


class ApiCacheHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.path_info.startswith("/api/"):
            patch_vary_headers(response, ("Authorization",))
            if request.META.get("HTTP_AUTHORIZATION"):
                patch_cache_control(response, private=True)
        return response
