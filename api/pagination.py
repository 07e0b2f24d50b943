"""Pagination of API lists.

Directories and short lists use page numbers (``?page=2&page_size=50``).
Streams that grow while a client reads them (posts of a thread, a combat log)
use a cursor: the client follows ``next`` and never sees an item twice or
misses one when new items arrive.
"""

from __future__ import annotations

from rest_framework.pagination import CursorPagination, PageNumberPagination


class PagePagination(PageNumberPagination):
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100


class _BoundedCursorPagination(CursorPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class PostCursorPagination(_BoundedCursorPagination):
    """Posts in thread order (``number`` is unique per thread)."""

    ordering = "number"


class LogCursorPagination(_BoundedCursorPagination):
    """Combat log entries in the order they were appended (``sequence``, unique per encounter)."""

    ordering = "sequence"


class SequenceCursorPagination(_BoundedCursorPagination):
    """Rolls of a campaign in chain order."""

    ordering = "sequence"
