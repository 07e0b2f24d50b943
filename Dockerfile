FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_DEBUG=0 TABLEE_NO_VENV=1 \
    TABLEE_MEDIA_ROOT=/app/media TABLEE_STATIC_ROOT=/app/staticfiles TABLEE_DATA_DIR=/app/data
# gettext: compilemessages at build; postgresql-client: ./tablee backup / restore (pg_dump).
RUN apt-get update && apt-get install -y --no-install-recommends gettext postgresql-client \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 1000 tablee
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
# Bytecode compiled once here (PYTHONDONTWRITEBYTECODE only stops writing it at run time): without it
# every process (each web worker, the worker, beat, the health checks, manage.py) compiles the
# application from source at start.
RUN python -m compileall -q -j 0 . \
 && DJANGO_SECRET_KEY=build-only python manage.py compilemessages --ignore=.venv -v0 \
# Web, worker and beat run as "tablee", never root; only the media and data volumes are writable.
 && DJANGO_SECRET_KEY=build-only python manage.py collectstatic --no-input -v0 \
 && mkdir -p /app/media /app/data /app/backups \
 && chown -R tablee:tablee /app/media /app/data /app/backups
# A named volume mounted on /app/media starts as a copy of this directory: owned by "tablee", writable.
VOLUME ["/app/media", "/app/data"]
USER tablee
EXPOSE 8000
ENV TABLEE_HOST=0.0.0.0
CMD ["./tablee", "web"]
