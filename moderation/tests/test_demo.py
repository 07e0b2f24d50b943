"""The demo shows the moderation queue and a suspended account."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client

from moderation.models import Report, Suspension

pytestmark = pytest.mark.django_db


def test_the_demo_fills_the_queue_and_suspends_spammeur() -> None:
    call_command("demo", stdout=open("/dev/null", "w"))
    call_command("demo", stdout=open("/dev/null", "w"))
    assert Report.objects.filter(status="open").count() == 2
    assert Suspension.objects.filter(user__username="spammeur", lifted_at__isnull=True).count() == 1
    mj = Client()
    mj.post("/accounts/login/", {"login": "mj", "password": "tablee-demo"})
    shown = mj.get("/moderation/").context["page"].object_list
    assert [r.kind for r in shown] == ["post"]  # the campaign report goes to moderators only
    spammer = Client()
    response = spammer.post("/accounts/login/", {"login": "spammeur", "password": "tablee-demo"}, follow=True)
    assert response.redirect_chain[-1][0] == "/moderation/suspended/"
