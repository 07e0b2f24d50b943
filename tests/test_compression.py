"""HTML is compressed for browsers that accept gzip; live streams never are."""

from __future__ import annotations

import gzip
from typing import Any

import pytest
from django.http import StreamingHttpResponse
from django.test import RequestFactory

from config.compression import CompressionMiddleware

pytestmark = pytest.mark.django_db


def test_it_gzips_pages(client: Any) -> None:
    response = client.get("/", HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200 and response["Content-Encoding"] == "gzip"
    html = gzip.decompress(response.content).decode()
    assert "Tablée" in html
    assert len(response.content) < len(html) / 2


def test_it_leaves_event_streams_alone() -> None:
    def stream(request: Any) -> StreamingHttpResponse:
        return StreamingHttpResponse(iter(["data: 1\n\n"] * 50), content_type="text/event-stream")

    request = RequestFactory().get("/live/", HTTP_ACCEPT_ENCODING="gzip")
    response = CompressionMiddleware(stream)(request)
    assert not response.has_header("Content-Encoding")
