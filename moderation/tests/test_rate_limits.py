"""Abuse limits: sign-up and login lock-out (allauth's ACCOUNT_RATE_LIMITS)
and reports (TABLEE_REPORT_RATE) trigger with a clear message and reset."""

from __future__ import annotations

import time
import types
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from moderation import services
from moderation.models import Report
from moderation.tests.conftest import client_for, verify_email

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def travel(monkeypatch: Any) -> Any:
    """Move allauth's and moderation's clocks forward by ``seconds``."""
    import allauth.core.internal.ratelimit as allauth_ratelimit

    offset = {"seconds": 0.0}
    fake = types.SimpleNamespace(
        time=lambda: time.time() + offset["seconds"], monotonic=time.monotonic, sleep=time.sleep
    )
    monkeypatch.setattr(allauth_ratelimit, "time", fake)
    monkeypatch.setattr(services, "_clock", fake.time)

    def forward(seconds: float) -> None:
        offset["seconds"] += seconds

    return forward


def _signup(client: Client, n: int) -> Any:
    return client.post(
        reverse("account_signup"),
        {
            "username": f"nouveau{n}",
            "email": f"nouveau{n}@example.test",
            "password1": "Un-mot-de-passe-solide-42",
            "password2": "Un-mot-de-passe-solide-42",
        },
    )


def test_sign_up_is_limited_and_resets(settings: Any, travel: Any, db: Any) -> None:
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "signup": "2/h/ip"}
    client = Client()
    assert _signup(client, 1).status_code == 302
    assert _signup(Client(), 2).status_code == 302
    refused = _signup(Client(), 3)
    assert refused.status_code == 429
    assert not User.objects.filter(username="nouveau3").exists()
    travel(3601)
    assert _signup(Client(), 4).status_code == 302
    assert User.objects.filter(username__startswith="nouveau").count() == 3


def _login(username: str, password: str) -> Any:
    return Client().post(reverse("account_login"), {"login": username, "password": password})


def test_login_locks_out_after_failures_and_resets(settings: Any, travel: Any, table: Any) -> None:
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "login_failed": "10/m/ip,3/5m/key"}
    verify_email(table.player)
    verify_email(table.player2)
    for _ in range(3):
        response = _login("player", "mauvais")
        assert response.status_code == 200
        assert "incorrect" in response.content.decode()
    locked = _login("player", "pw-player-12345")
    assert locked.status_code in (200, 429)
    assert "_auth_user_id" not in locked.wsgi_request.session
    assert "Trop de tentatives" in locked.content.decode()
    other = _login("player2", "pw-player2-12345")
    assert other.status_code == 302 and other["Location"] == "/"
    travel(301)
    unlocked = _login("player", "pw-player-12345")
    assert unlocked.status_code == 302 and unlocked["Location"] == "/"


def test_login_lock_out_also_resets_when_the_cache_is_cleared(settings: Any, table: Any) -> None:
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "login_failed": "10/m/ip,2/5m/key"}
    verify_email(table.player)
    for _ in range(2):
        _login("player", "mauvais")
    assert _login("player", "pw-player-12345").status_code != 302
    cache.clear()
    assert _login("player", "pw-player-12345").status_code == 302


def test_reports_are_limited_and_reset(settings: Any, travel: Any, table: Any, thread: Any) -> None:
    from campaigns import services as campaign_services

    settings.TABLEE_REPORT_RATE = "2/10m"
    posts = [campaign_services.create_post(table.gm, thread, body=f"Message {n}") for n in range(4)]
    services.report_target(table.player, post=posts[0], reason="spam")
    services.report_target(table.player, post=posts[1], reason="spam")
    with pytest.raises(services.RateLimited) as exc:
        services.report_target(table.player, post=posts[2], reason="spam")
    assert isinstance(exc.value, ValidationError)
    assert "trop de signalements" in exc.value.messages[0]
    response = client_for(table.player).post(
        reverse("moderation:report_create", args=["post", posts[2].pk]), {"reason": "spam"}
    )
    assert response.status_code == 429
    assert "trop de signalements" in response.content.decode()
    services.report_target(table.player2, post=posts[2], reason="spam")
    travel(601)
    services.report_target(table.player, post=posts[3], reason="spam")
    assert Report.objects.filter(reporter=table.player).count() == 3


def test_the_report_rate_reads_settings(settings: Any) -> None:
    settings.TABLEE_REPORT_RATE = "7/h"
    assert services.report_rate() == (7, 3600)
    assert services.parse_rate("3/90") == (3, 90)
    assert services.parse_rate("5/10m") == (5, 600)
    with pytest.raises(ValueError):
        services.parse_rate("x/m")
    settings.TABLEE_REPORT_RATE = "0/m"
    assert services.report_rate() == (0, 60)
