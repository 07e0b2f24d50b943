"""The demo command leaves a working site."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from campaigns.models import Campaign, Membership


@pytest.mark.django_db
def test_it_creates_the_documented_accounts_and_tables() -> None:
    call_command("demo", stdout=open("/dev/null", "w"))
    users = {u.username: u for u in get_user_model().objects.all()}
    assert {"admin", "mj", "joueuse", "joueur"} <= set(users)
    assert users["admin"].is_superuser and users["admin"].is_staff
    assert not users["mj"].is_staff
    systems = set(Campaign.objects.values_list("system", flat=True))
    assert systems == {"ambre", "clefs-de-l-aube", "sms", "altaride"}
    assert Membership.objects.filter(user=users["mj"], role="gm").count() == 4


@pytest.mark.django_db
def test_it_is_idempotent() -> None:
    call_command("demo", stdout=open("/dev/null", "w"))
    counts = (get_user_model().objects.count(), Campaign.objects.count(), Membership.objects.count())
    call_command("demo", stdout=open("/dev/null", "w"))
    assert (get_user_model().objects.count(), Campaign.objects.count(), Membership.objects.count()) == counts


@pytest.mark.django_db
def test_the_demo_accounts_can_log_in() -> None:
    call_command("demo", stdout=open("/dev/null", "w"))
    client = Client()
    response = client.post("/accounts/login/", {"login": "mj", "password": "tablee-demo"})
    assert response.status_code == 302
    assert client.get("/profile/").status_code == 200
