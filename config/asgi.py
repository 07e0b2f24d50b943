"""ASGI entry point: ``uvicorn config.asgi:application``.

Live updates (Server-Sent Events) are async views, so one process holds
many open streams. On embedded defaults (no Redis) the periodic tasks run
in-process (:mod:`config.inprocess_beat`).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_asgi_application()

from config.inprocess_beat import start_if_embedded  # noqa: E402

start_if_embedded()
