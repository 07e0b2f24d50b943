"""Issue 18 item 6: response headers, cookies and production settings that harden the site."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from api.tests.conftest import token_client
from tests.test_settings import BASE_ENV, ROOT

pytestmark = pytest.mark.django_db

PROD = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "x" * 20 + "-production-secret-key-with-enough-entropy-1234567890",
    "DJANGO_ALLOWED_HOSTS": "tablee.example.org",
}
PROBE = (
    "import json; import config.settings as s;"
    "print(json.dumps({'renderers': s.REST_FRAMEWORK['DEFAULT_RENDERER_CLASSES'],"
    "'proxy': getattr(s, 'SECURE_PROXY_SSL_HEADER', None), 'lang_secure': s.LANGUAGE_COOKIE_SECURE,"
    "'lang_samesite': s.LANGUAGE_COOKIE_SAMESITE, 'lang_httponly': s.LANGUAGE_COOKIE_HTTPONLY}))"
)


def _probe(env: dict[str, str]) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env={**BASE_ENV, **env}, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_production_turns_off_the_browsable_api_and_trusts_a_proxy_only_when_told() -> None:
    found = _probe(PROD)
    assert found["renderers"] == ["rest_framework.renderers.JSONRenderer"]
    assert found["proxy"] is None
    assert found["lang_secure"] is True and found["lang_samesite"] == "Lax" and found["lang_httponly"] is True
    assert _probe({**PROD, "TABLEE_NUM_PROXIES": "1"})["proxy"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert "rest_framework.renderers.BrowsableAPIRenderer" in _probe({})["renderers"]


def test_every_page_carries_a_strict_csp(table: Any) -> None:
    client = Client()
    client.force_login(table.gm)
    for url in ("/", "/campaigns/", f"/campaigns/{table.campaign.slug}/", "/api/docs/", "/api/redoc/", "/nowhere/"):
        policy = client.get(url, follow=True)["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
        assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
    first = client.get("/")["Content-Security-Policy"]
    assert re.search(r"'nonce-[\w-]+'", first) and first != client.get("/")["Content-Security-Policy"]
    assert "blob:" not in first and "blob:" in client.get("/api/redoc/")["Content-Security-Policy"]


def test_templates_hold_no_inline_script_style_or_handler() -> None:
    """What the CSP would block: inline <script>/<style>, style="", on*="", hx-on."""
    bad = re.compile(r"<script(?![^>]*\bsrc=)|<style|\sstyle=\"|\son[a-z]+=\"|hx-on[:-]", re.I)
    offenders = []
    for path in [*Path(ROOT).glob("*/templates/**/*.html"), *Path(ROOT).glob("templates/**/*.html")]:
        if ".venv" in path.parts:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if bad.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}")
    assert offenders == []
    base = (Path(ROOT) / "templates/base.html").read_text()
    assert '"allowEval": false' in base and '"allowScriptTags": false' in base


def test_the_language_cookie_has_its_flags() -> None:
    response = Client().post("/i18n/setlang/", {"language": "en", "next": "/"})
    cookie = response.cookies["tablee_language"]
    assert cookie["samesite"] == "Lax" and cookie["httponly"]


def test_token_api_answers_are_private_and_vary_on_authorization(table: Any) -> None:
    response = token_client(table.player).get("/api/v1/me/")
    assert response.status_code == 200
    assert "private" in response["Cache-Control"]
    assert "Authorization" in response["Vary"]
    anonymous = Client().get("/api/v1/systems/")
    assert "Authorization" in anonymous["Vary"] and "private" not in anonymous.get("Cache-Control", "")


def test_the_image_never_runs_as_root() -> None:
    dockerfile = (Path(ROOT) / "Dockerfile").read_text()
    users = re.findall(r"^USER\s+(\S+)", dockerfile, re.M)
    assert users and users[-1] not in ("root", "0")
    compose = (Path(ROOT) / "docker-compose.yml").read_text()
    assert "user: root" not in compose and 'user: "0' not in compose
