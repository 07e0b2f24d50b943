"""The admin: usable by staff (search, filters) and read-only for immutable records."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from campaigns import services as campaign_services
from campaigns.models import Roll
from moderation import services
from moderation.models import AuditLog

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def staff() -> Client:
    user = User.objects.create_superuser("root", "root@example.test", "pw-root-12345")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def records(table: Any, thread: Any) -> dict[str, Any]:
    from characters.ledger import append_entry
    from characters.models import Character
    from combat.models import Encounter, LogEntry
    from live.models import LiveEvent

    post = campaign_services.create_post(table.player, thread, body="Jet", roll_requests=[{"expression": "3d6"}])
    hero = Character.objects.create(campaign=table.campaign, owner=table.player, name="Corwin", system="ambre")
    encounter = Encounter.objects.create(campaign=table.campaign, thread=thread, title="Embuscade")
    services.lock_thread(table.gm, thread, reason="Pause")
    return {
        "roll": Roll.objects.get(post=post),
        "ledger": append_entry(hero, "karma", 3, "gm_award", created_by=table.gm),
        "combat": LogEntry.objects.create(encounter=encounter, sequence=1, kind="created"),
        "live": LiveEvent.objects.create(channel="thread:1", kind="post-created", data={"n": 1}),
        "audit": AuditLog.objects.get(),
    }


IMMUTABLE = ["roll", "ledger", "combat", "live", "audit"]


def _urls(obj: Any) -> dict[str, str]:
    meta = obj._meta
    base = f"admin:{meta.app_label}_{meta.model_name}"
    return {
        "changelist": reverse(f"{base}_changelist"),
        "change": reverse(f"{base}_change", args=[obj.pk]),
        "delete": reverse(f"{base}_delete", args=[obj.pk]),
        "add": reverse(f"{base}_add"),
    }


def _snapshot(obj: Any) -> dict[str, Any]:
    return {f.attname: getattr(type(obj).objects.get(pk=obj.pk), f.attname) for f in obj._meta.concrete_fields}


@pytest.mark.parametrize("name", IMMUTABLE)
def test_immutable_records_are_browsable_but_never_edited(staff: Client, records: dict[str, Any], name: str) -> None:
    obj = records[name]
    urls = _urls(obj)
    before = _snapshot(obj)
    assert staff.get(urls["changelist"]).status_code == 200
    assert staff.get(urls["changelist"], {"q": "x"}).status_code == 200
    view = staff.get(urls["change"])
    assert view.status_code == 200
    assert 'name="_save"' not in view.content.decode()
    assert staff.post(urls["change"], {"amount": 999, "label": "triche", "reason": "x"}).status_code == 403
    assert staff.get(urls["delete"]).status_code == 403
    assert staff.post(urls["delete"], {"post": "yes"}).status_code == 403
    assert staff.get(urls["add"]).status_code == 403
    response = staff.post(
        urls["changelist"], {"action": "delete_selected", "_selected_action": [obj.pk], "post": "yes"}
    )
    assert response.status_code in (200, 302)
    assert _snapshot(obj) == before
    model_admin = admin.site._registry[type(obj)]
    assert model_admin.get_actions(staff.get(urls["changelist"]).wsgi_request) == {}


def test_staff_lists_search_and_filter(staff: Client, records: dict[str, Any], table: Any) -> None:
    checks = [
        ("admin:campaigns_campaign_changelist", {"q": "Table", "locked__exact": "0"}),
        ("admin:campaigns_post_changelist", {"q": "Jet", "hidden__exact": "0"}),
        ("admin:campaigns_thread_changelist", {"locked__exact": "1"}),
        ("admin:characters_character_changelist", {"q": "Corwin"}),
        ("admin:moderation_report_changelist", {"status__exact": "open"}),
        ("admin:moderation_suspension_changelist", {"q": "player"}),
        ("admin:moderation_auditlog_changelist", {"action__exact": "thread_locked"}),
        ("admin:campaigns_roll_changelist", {"secret__exact": "0"}),
        ("admin:auth_user_changelist", {"q": "player"}),
    ]
    for name, params in checks:
        response = staff.get(reverse(name), params)
        assert response.status_code == 200, name
    response = staff.get(reverse("admin:moderation_auditlog_changelist"), {"action__exact": "thread_locked"})
    assert "Pause" in response.content.decode()
    response = staff.get(reverse("admin:auth_user_change", args=[table.player.pk]))
    assert response.status_code == 200
    assert "suspension" in response.content.decode().lower()


def test_non_staff_cannot_enter_the_admin(table: Any) -> None:
    client = Client()
    client.force_login(table.moderator)
    response = client.get(reverse("admin:index"))
    assert response.status_code == 302


def test_deleting_a_user_in_the_admin_keeps_the_roll_chain_valid(
    staff: Client, records: dict[str, Any], table: Any
) -> None:
    from campaigns import dice

    url = reverse("admin:auth_user_delete", args=[table.player.pk])
    assert staff.post(url, {"post": "yes"}).status_code == 302
    assert dice.verify_chain(table.campaign) == (True, [])
    assert User.objects.get(pk=table.player.pk).username == f"deleted-{table.player.pk}"
    response = staff.post(
        reverse("admin:auth_user_changelist"),
        {"action": "delete_selected", "_selected_action": [table.player2.pk], "post": "yes"},
    )
    assert response.status_code == 302
    assert not User.objects.filter(pk=table.player2.pk).exists()
    assert dice.verify_chain(table.campaign) == (True, [])
