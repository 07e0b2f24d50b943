"""Per-system plug-in apps (the top layer; leaves).

Each ``systems/<name>/`` is a Django app holding what only one rule system has
(models, services, views, URLs, API routes, templates, tasks, tests). It plugs
into the generic apps through their registries (:mod:`characters.plugins`,
:mod:`live.registry`, :mod:`config.exporters`) in its ``AppConfig.ready()``;
no generic app imports it. ``config.settings`` installs every package here
that has an ``apps.py``. The plug-ins are independent of each other.
"""
