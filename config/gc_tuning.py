"""The garbage collector of a web process: what was loaded at startup frozen, young collections rarer.

CPython's cyclic collector runs a young collection every 700 new container objects and a full one
every 100 of those. A thread page makes several thousand (model instances, template contexts), so a
full collection came every few pages, and each one walked every object of the process, most of them
the modules, URL patterns and settings loaded once at startup: a pause of tens of milliseconds in
the middle of a page, which was the thread and sheet pages' 99th percentile (bench_thread_http.py,
2026-12-05: p99 103-114 ms -> 73-83 ms for the thread page, 102-122 ms -> 93-95 ms for the sheet page,
the same req/s or a few percent more, resident memory 123 -> 125 MB).

:func:`tune_for_serving` (called by ``config/asgi.py``, so in every uvicorn worker) loads the URL
patterns, collects once, moves everything alive into the permanent generation (``gc.freeze()``, as
Python's documentation advises for long-running servers) and raises the young generation's
threshold to :data:`YOUNG_THRESHOLD`. Objects are still freed as before (reference counting); only
cycles wait a little longer. ``TABLEE_GC_TUNING=0`` leaves the collector as Python sets it.
"""

from __future__ import annotations

import gc
import os

#: New container objects between two young collections (Python: 700).
YOUNG_THRESHOLD = 20_000


def tune_for_serving() -> bool:
    """Freeze the startup objects and space out collections; ``False`` when turned off."""
    if os.environ.get("TABLEE_GC_TUNING", "1") == "0":
        return False
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 -- loads the URLconf now, so it is frozen with the rest
    gc.collect()
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(max(_young, YOUNG_THRESHOLD), middle, old)
    return True
