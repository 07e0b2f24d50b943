"""ASGI entry point: ``uvicorn config.asgi:application``.

Live updates (Server-Sent Events) are async views, so one process holds
many open streams; every other request is served whole in one worker
thread (:mod:`config.asgi_handler`). On embedded defaults (no Redis) the
periodic tasks run in-process (:mod:`config.inprocess_beat`).
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from config.asgi_handler import get_application

application = get_application()

from config.inprocess_beat import start_if_embedded  # noqa: E402

start_if_embedded()
