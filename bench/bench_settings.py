"""Settings of the HTTP benchmarks: the site's, plus the lean comparison view."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.bench_urls"
ALLOWED_HOSTS = ["*"]
DEBUG = False
