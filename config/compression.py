"""Gzip for HTML pages, never for live streams.

Django's ``GZipMiddleware`` also compresses streaming responses, which would
hold Server-Sent Events in the compressor's buffer; live streams
(``text/event-stream``) and other streaming responses are left alone.
BREACH: Django masks the CSRF token differently on every response, so the
secret a page carries is not exposed by compression.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware


class CompressionMiddleware(GZipMiddleware):
    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if response.streaming or not response.get("Content-Type", "").startswith("text/html"):
            return response  # pages only: live streams must flow, API clients negotiate their own
        return super().process_response(request, response)
