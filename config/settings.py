"""Tablée settings, read from the environment.

With no environment at all, Tablée runs on embedded defaults: SQLite,
Celery tasks run in-process, live events through an in-process hub, a local
memory cache and e-mail printed to the console. Set ``DATABASE_URL`` and
``REDIS_URL`` to use PostgreSQL, Redis (broker, cache, pub/sub) and a real
Celery worker. See README.md for every variable.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DJANGO_DEBUG", True)
#: Production as configured (``DJANGO_DEBUG=0``), whatever a test runner does to DEBUG.
TABLEE_PRODUCTION = not DEBUG
_DEV_SECRET = "django-insecure-tablee-development-key-do-not-use-in-production"
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", _DEV_SECRET if DEBUG else "")
if not SECRET_KEY:
    raise RuntimeError("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off.")

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")
#: The public address of the site (links in e-mails); its host is the ``django.contrib.sites`` domain.
SITE_URL = os.environ.get("TABLEE_SITE_URL", "http://127.0.0.1:8000").rstrip("/")
SITE_DOMAIN = urlsplit(SITE_URL).netloc or "127.0.0.1:8000"
SITE_NAME = os.environ.get("TABLEE_SITE_NAME", "Tablée")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sites",
    "django.contrib.postgres",
    "allauth",
    "allauth.account",
    "django_htmx",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    # Tablée
    "accounts",
    "live",
    "campaigns",
    "characters",
    "combat",
    "progression",
    "moderation",
    "rhythm",
    "api",
    # Per-system plug-ins (systems/<name>/, the top layer): every package there with an apps.py,
    # so adding a system's plug-in needs no line here.
    *sorted(
        f"systems.{path.parent.name}"
        for path in (BASE_DIR / "systems").glob("*/apps.py")
        if not path.parent.name.startswith(("_", "."))
    ),
]

MIDDLEWARE = [
    # /healthz first: answers before the HTTPS redirect and the Host check (internal probes).
    "config.health.HealthCheckMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.compression.CompressionMiddleware",
    "config.security.ContentSecurityPolicyMiddleware",
    "config.security.ApiCacheHeadersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.ProfileLanguageMiddleware",
    "rhythm.middleware.TimezoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "moderation.middleware.SuspensionMiddleware",
    "config.idempotency.IdempotencyMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "accounts.context_processors.site",
            ],
            # {% once_field %}: the one-time token of forms that create something; {% url %} and
            # {% include_pure %}: answers kept per process (config.urltag, config.puretag).
            # {% static %} (its answers kept, config.statictag) is a builtin too: the site's templates do not
            # {% load static %}, which would put Django's tag back.
            "builtins": [
                "config.idempotency",
                "config.typography",
                "config.urltag",
                "config.puretag",
                "config.statictag",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

# --- Database -------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL", "")
#: Connections never outlive their request (``CONN_MAX_AGE=0``): under ASGI a
#: request runs in a thread of its own, and a kept connection would stay with
#: that thread. On PostgreSQL each process shares a bounded psycopg pool
#: instead (``TABLEE_DB_POOL_SIZE`` connections at most, ``0`` turns it off),
#: so a burst waits up to ``TABLEE_DB_POOL_TIMEOUT`` seconds for a free
#: connection rather than exhausting the server's ``max_connections``.
DB_POOL_SIZE = int(os.environ.get("TABLEE_DB_POOL_SIZE", "10"))
DB_POOL_TIMEOUT = float(os.environ.get("TABLEE_DB_POOL_TIMEOUT", "10"))
#: Threads per web process that serve pages (config.asgi_handler): pages are Python
#: under one GIL, so a few threads overlap one page's database waits with another's
#: work; more only trade CPU for lock contention. The live streams do not use them.
WEB_THREADS = int(os.environ.get("TABLEE_WEB_THREADS", "4"))
#: PostgreSQL: after how many runs on one connection a query is prepared (``0``: never, and
#: parameters are bound by the client, Django's default).
DB_PREPARE_THRESHOLD = int(os.environ.get("TABLEE_DB_PREPARE_THRESHOLD", "2"))
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0, conn_health_checks=True)}
    # Not in Celery processes: a pool's threads do not survive the worker's
    # fork, and a worker process runs one task at a time anyway.
    _celery_process = "celery" in Path(sys.argv[0] if sys.argv else "").parts[-2:]
    if (
        DATABASES["default"]["ENGINE"].endswith("postgresql")
        and DB_POOL_SIZE > 0
        and "pytest" not in sys.modules
        and not _celery_process
    ):
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": min(2, DB_POOL_SIZE),
            "max_size": DB_POOL_SIZE,
            "timeout": DB_POOL_TIMEOUT,
            # A connection idle for a minute is closed: a quiet site holds
            # only ``min_size`` connections.
            "max_idle": 60,
            # A failed reconnection is given up after 5 s (psycopg's backoff
            # doubles without bound): the next request starts a fresh one, so
            # the site is back within a second or two of the database.
            "reconnect_timeout": 5,
        }
    if DATABASES["default"]["ENGINE"].endswith("postgresql"):
        # Django's backend (config/postgresql/): with the pool, its wait bounded while the server
        # refuses connections (a restart is ridden out as before; past the pool's timeout of an
        # outage, pages and /healthz answer 503 within a second); everywhere, dates read in C.
        DATABASES["default"]["ENGINE"] = "config.postgresql"
    if DATABASES["default"]["ENGINE"].endswith("postgresql") and DB_PREPARE_THRESHOLD > 0:
        # Parameters bound by the server, so a query sent DB_PREPARE_THRESHOLD times on a
        # connection is prepared there and planned once (the pool keeps connections, and so
        # their plans): a page's SQL takes about half the time (#21).
        DATABASES["default"].setdefault("OPTIONS", {}).update(
            server_side_binding=True, prepare_threshold=DB_PREPARE_THRESHOLD
        )
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("TABLEE_SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            "OPTIONS": {"timeout": 20},
            # A file (not :memory:) so threads of a test ASGI server share it;
            # one per test process so parallel runs do not collide.
            "TEST": {"NAME": os.path.join(tempfile.gettempdir(), f"tablee-test-{os.getpid()}.sqlite3")},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USING_POSTGRES = DATABASES["default"]["ENGINE"].endswith("postgresql")
if "pytest" in sys.modules:
    # Test servers run requests in threads: do not keep their connections.
    DATABASES["default"]["CONN_MAX_AGE"] = 0

# --- Redis: cache, broker, live events -----------------------------------
#: Names this site's live channels and cache keys on a shared Redis server
#: (pub/sub ignores database numbers): two instances on one server must use
#: different names. Defaults to the database name, so it differs per instance.
TABLEE_INSTANCE = os.environ.get("TABLEE_INSTANCE") or (
    Path(str(DATABASES["default"].get("NAME") or "tablee")).stem.replace(":", "_") or "tablee"
)
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    # Fails open (config.cache): with Redis down the site keeps working,
    # rate limits and throttles let everything through and log it. Its clear()
    # deletes only its own keys: the Redis database may also be the Celery
    # broker's. Under pytest each test process has its own prefix.
    CACHES = {
        "default": {
            "BACKEND": "config.cache.FailOpenRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": (os.environ.get("TABLEE_CACHE_PREFIX") or "tablee:" + TABLEE_INSTANCE)
            + (f"-test-{os.getpid()}" if "pytest" in sys.modules else ""),
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "tablee"}}

#: "redis" (one subscription per web process, fanned out to its streams) or
#: "inprocess" (a single process, no Redis).
LIVE_BACKEND = os.environ.get("TABLEE_LIVE_BACKEND", "redis" if REDIS_URL else "inprocess")
LIVE_REDIS_PREFIX = os.environ.get("TABLEE_LIVE_PREFIX", f"tablee:{TABLEE_INSTANCE}:live:")
#: Seconds between keep-alive comments on an open event stream.
LIVE_KEEPALIVE_SECONDS = int(os.environ.get("TABLEE_LIVE_KEEPALIVE", "15"))

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or None
#: Under pytest, tasks run in-process unless a test starts a real worker.
TESTING = "pytest" in sys.modules
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", TESTING or not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
# A killed pool process puts its message back at once (acks_late alone would ack it as failed).
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = int(os.environ.get("TABLEE_TASK_TIME_LIMIT", "600"))
CELERY_TASK_SOFT_TIME_LIMIT = CELERY_TASK_TIME_LIMIT - 60
# Redis redelivers an unacknowledged message after the visibility timeout: just
# past the longest a task may run (Redis's default is one hour).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_TASK_TIME_LIMIT + 60,
    "socket_connect_timeout": 5,
    "socket_timeout": 10,
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True  # a worker started before Redis waits for it
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5, "interval_max": 1}
#: The session job's lease: a run whose worker has not refreshed its heartbeat for
#: this long is dead and is re-sent by the sweeper (beat).
TABLEE_RUN_LEASE_SECONDS = float(os.environ.get("TABLEE_RUN_LEASE_SECONDS", "120"))
#: Period of the sweeper that re-sends dead or never-sent runs.
TABLEE_RUN_SWEEP_INTERVAL = float(os.environ.get("TABLEE_RUN_SWEEP_INTERVAL", "60"))
#: Retries of the session job on database errors (backoff up to 60 s each: ~25 min for 30).
TABLEE_RUN_MAX_RETRIES = int(os.environ.get("TABLEE_RUN_MAX_RETRIES", "30"))
#: Characters per transaction of the session job (set-based: a few queries per chunk).
TABLEE_RUN_CHUNK_SIZE = int(os.environ.get("TABLEE_RUN_CHUNK_SIZE", "200"))
#: A dedicated Celery queue for the session job and its sweeper (empty: the default queue).
PROGRESSION_TASK_QUEUE = os.environ.get("TABLEE_PROGRESSION_QUEUE", "") or None
CELERY_BEAT_SCHEDULE: dict[str, dict] = {}
CELERY_BEAT_SCHEDULE["progression-sweep-stale-runs"] = {
    "task": "progression.sweep_stale_runs",
    "schedule": TABLEE_RUN_SWEEP_INTERVAL,
    "options": {"queue": PROGRESSION_TASK_QUEUE} if PROGRESSION_TASK_QUEUE else {},
}
# Campaigns: e-mail digest of unread notifications (members who opted in).
CELERY_BEAT_SCHEDULE["campaigns-notification-digest"] = {
    "task": "campaigns.tasks.send_notification_digests",
    "schedule": float(os.environ.get("TABLEE_DIGEST_INTERVAL", str(6 * 3600))),
}
# Rhythm: reminders before scene deadlines, e-mails after, the GM's deadline choice.
CELERY_BEAT_SCHEDULE["rhythm-tick"] = {
    "task": "rhythm.tasks.tick",
    "schedule": float(os.environ.get("TABLEE_RHYTHM_INTERVAL", "300")),
}

# --- Auth and accounts (django-allauth) ---------------------------------
AUTHENTICATION_BACKENDS = [
    # The member, profile, suspension, moderator flag and unread count in one query.
    "config.auth.ModelBackend",
    "config.auth.AuthenticationBackend",
    # Sessions opened before they were introduced.
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
SITE_ID = 1
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "home"
ACCOUNT_LOGOUT_REDIRECT_URL = "home"
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = os.environ.get("TABLEE_EMAIL_VERIFICATION", "mandatory")
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_USERNAME_MIN_LENGTH = 3
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
# Sign-up, login failures and password resets are rate limited by allauth;
# values are "count/period/key" (see allauth's ACCOUNT_RATE_LIMITS).
ACCOUNT_RATE_LIMITS = {
    "signup": os.environ.get("TABLEE_RATE_SIGNUP", "20/h/ip"),
    "login": os.environ.get("TABLEE_RATE_LOGIN", "30/m/ip"),
    "login_failed": os.environ.get("TABLEE_RATE_LOGIN_FAILED", "10/m/ip,5/5m/key"),
    "reset_password": "20/m/ip,5/m/key",
    "reset_password_from_key": "20/m/ip",
    "confirm_email": "1/3m/key",
    "change_password": "5/m/user",
}

# --- E-mail ----------------------------------------------------------------
EMAIL_BACKEND = os.environ.get("DJANGO_EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
#: Seconds before an unresponsive SMTP server gives up (a request never hangs on it).
EMAIL_TIMEOUT = int(os.environ.get("EMAIL_TIMEOUT", "10"))
EMAIL_SUBJECT_PREFIX = os.environ.get("TABLEE_EMAIL_SUBJECT_PREFIX", f"[{SITE_NAME}] ")
ACCOUNT_EMAIL_SUBJECT_PREFIX = EMAIL_SUBJECT_PREFIX
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Tablée <noreply@tablee.localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# --- Internationalisation --------------------------------------------------
LANGUAGE_CODE = "fr"
LANGUAGES = [("fr", _("Français")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_NAME = "tablee_language"
LANGUAGE_COOKIE_SAMESITE = "Lax"
LANGUAGE_COOKIE_HTTPONLY = True  # no script reads it: the language switch is a form
LANGUAGE_COOKIE_SECURE = not DEBUG
TIME_ZONE = os.environ.get("TABLEE_TIME_ZONE", "Europe/Paris")
USE_I18N = True
USE_TZ = True

# --- Static and media --------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("TABLEE_STATIC_ROOT", BASE_DIR / "staticfiles"))
MEDIA_URL = "media/"
MEDIA_ROOT = Path(os.environ.get("TABLEE_MEDIA_ROOT", BASE_DIR / "media"))
#: No public ``/media/``: portraits are served by ``characters.views.portrait_file`` (authorization checked).
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
# Upload limits (portraits are re-encoded; see characters).
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
TABLEE_MAX_PORTRAIT_BYTES = int(os.environ.get("TABLEE_MAX_PORTRAIT_BYTES", str(2 * 1024 * 1024)))
#: Portraits go through an authorization check (characters.views.portrait_file); behind a proxy,
#: let it send the file: nginx's X-Accel-Redirect to this internal location, or X-Sendfile.
TABLEE_MEDIA_ACCEL_REDIRECT = os.environ.get("TABLEE_MEDIA_ACCEL_REDIRECT", "")
TABLEE_MEDIA_SENDFILE = env_bool("TABLEE_MEDIA_SENDFILE", False)
#: Largest image (width x height) decoded: bounds the memory of a decode (12 Mpx RGB: 36 MB),
#: checked from the header before any pixel is decoded.
TABLEE_MAX_IMAGE_PIXELS = int(os.environ.get("TABLEE_MAX_IMAGE_PIXELS", str(12_000_000)))
TABLEE_MAX_POST_LENGTH = int(os.environ.get("TABLEE_MAX_POST_LENGTH", "20000"))
TABLEE_MAX_SHEET_BYTES = int(os.environ.get("TABLEE_MAX_SHEET_BYTES", str(256 * 1024)))
# Dice checkpoints are signed with the instance's Ed25519 key (campaigns.checkpoints): the 32-byte
# private key in hex or base64 from the environment, or else a key generated on first use into
# TABLEE_DATA_DIR (never served: keep it out of the media directory, back it up with the database).
TABLEE_DATA_DIR = Path(os.environ.get("TABLEE_DATA_DIR", BASE_DIR / "data"))
TABLEE_ROLLS_SIGNING_KEY = os.environ.get("TABLEE_ROLLS_SIGNING_KEY", "")
#: Deepest nesting accepted in a JSON document (API bodies, JSON form fields).
TABLEE_MAX_JSON_DEPTH = int(os.environ.get("TABLEE_MAX_JSON_DEPTH", "32"))
#: How long a one-time form token or an API Idempotency-Key is remembered.
TABLEE_IDEMPOTENCY_SECONDS = int(os.environ.get("TABLEE_IDEMPOTENCY_SECONDS", str(24 * 3600)))
#: Posting rate per user ("count/period", period s, m, h or d; "0" turns it off).
TABLEE_POST_RATE = os.environ.get("TABLEE_POST_RATE", "10/m")
#: Reports per user (see moderation.services.report_rate).
TABLEE_REPORT_RATE = os.environ.get("TABLEE_RATE_REPORT", "5/10m")

# --- REST API ------------------------------------------------------------------
# Authentication: personal tokens (api.authentication) first, so an
# unauthenticated request gets 401 with WWW-Authenticate; browser sessions next.
# Throttles: per member and per IP (api.throttles); "posting" is opted in by
# the views that create content. Errors: one format (api.exceptions).
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.PersonalTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "api.schema.TableeAutoSchema",
    "DEFAULT_PAGINATION_CLASS": "api.pagination.PagePagination",
    "DEFAULT_THROTTLE_CLASSES": [
        "api.throttles.UserThrottle",
        "api.throttles.AnonThrottle",
        "api.throttles.IPThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "user": os.environ.get("TABLEE_RATE_API_USER", "600/min"),
        "anon": os.environ.get("TABLEE_RATE_API_ANON", "120/min"),
        "ip": os.environ.get("TABLEE_RATE_API_IP", "1200/min"),
        "posting": os.environ.get("TABLEE_RATE_API_POSTING", "30/min"),
    },
    "EXCEPTION_HANDLER": "api.exceptions.api_exception_handler",
    # The browsable API is a development aid: production answers JSON only.
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"]
    + (["rest_framework.renderers.BrowsableAPIRenderer"] if DEBUG else []),
    # Refuses JSON nested deeper than TABLEE_MAX_JSON_DEPTH before parsing it, and NUL characters.
    "DEFAULT_PARSER_CLASSES": ["api.parsers.StrictJSONParser"],
    "PAGE_SIZE": 20,
    # Behind N trusted proxies, the per-IP throttle reads X-Forwarded-For.
    "NUM_PROXIES": int(os.environ["TABLEE_NUM_PROXIES"]) if os.environ.get("TABLEE_NUM_PROXIES") else None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Tablée API",
    "DESCRIPTION": (
        "Play-by-post tabletop role-playing campaigns. Authenticate with a browser session or a personal token "
        "(`Authorization: Token <key>`, created from your profile). Errors share one body: "
        "`{code, detail, errors: [{field, code, message}]}`. What you may not see answers 404."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SCHEMA_PATH_PREFIX": r"/api/v[0-9]+",
    "ENUM_NAME_OVERRIDES": {
        "MemberRoleEnum": "api.serializers.MEMBER_ROLES",
        "AssignableRoleEnum": "api.serializers.ASSIGNABLE_ROLES",
        "JoiningRoleEnum": "api.serializers.JOINING_ROLES",
    },
}

# --- Security (production) ------------------------------------------------------
# Django's database sessions, the row read by a query compiled once per process (config/sessions.py).
SESSION_ENGINE = "config.sessions"
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads it from the cookie-less header on <body>
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
#: The Content-Security-Policy of every response (``config.security``); empty: the strict default.
TABLEE_CSP = os.environ.get("TABLEE_CSP", "")
#: Trust ``X-Forwarded-Proto`` only behind a proxy that sets it (``TABLEE_NUM_PROXIES`` > 0, or
#: ``DJANGO_SECURE_PROXY_SSL_HEADER=1``): without one, a client could claim HTTPS itself.
if env_bool("DJANGO_SECURE_PROXY_SSL_HEADER", int(os.environ.get("TABLEE_NUM_PROXIES") or 0) > 0):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", False)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("TABLEE_LOG_LEVEL", "INFO")},
    "filters": {"outage": {"()": "config.postgresql.outage.OutageLogFilter"}},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # WARNING is psycopg's own default, kept explicit (its pool logs three INFO lines per
        # request); during an outage "error connecting" is logged once per half minute.
        "psycopg.pool": {"level": "WARNING", "filters": ["outage"]},
    },
}

# WhiteNoise serves static files under the ASGI server too (no runserver).
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
