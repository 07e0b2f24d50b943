FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_DEBUG=0
RUN apt-get update && apt-get install -y --no-install-recommends gettext && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 1000 tablee
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN DJANGO_SECRET_KEY=build-only python manage.py compilemessages --ignore=.venv -v0 \
 && DJANGO_SECRET_KEY=build-only python manage.py collectstatic --no-input -v0
# Web, worker and beat run as "tablee", never root; only the media volume is writable.
RUN mkdir -p /app/media && chown tablee:tablee /app/media
USER tablee
EXPOSE 8000
CMD ["uvicorn", "config.asgi:application", "--host", "0.0.0.0", "--port", "8000", "--proxy-headers", "--workers", "2"]
