"""ASGI entry point: ``uvicorn config.asgi:application``.

Live updates (Server-Sent Events) are async views, so one process holds
many open streams; every other request is served whole in one worker
thread (:mod:`config.asgi_handler`). On embedded defaults (no Redis) the
periodic tasks run in-process (:mod:`config.inprocess_beat`). The garbage collector is
tuned for a long-running server (:mod:`config.gc_tuning`).
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from config.asgi_handler import get_application

application = get_application()

from config.gc_tuning import tune_for_serving  # noqa: E402
from config.inprocess_beat import start_if_embedded  # noqa: E402

tune_for_serving()
start_if_embedded()
