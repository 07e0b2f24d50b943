"""The Celery application.

With ``REDIS_URL`` set, tasks go to Redis and a worker runs them
(``celery -A config worker -l info``). Without it, tasks run in-process
(``task_always_eager``), so a laptop needs nothing else.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("tablee")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
