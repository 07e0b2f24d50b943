"""ASGI entry point: ``uvicorn config.asgi:application``.

Live updates (Server-Sent Events) are async views, so one process holds
many open streams.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_asgi_application()
