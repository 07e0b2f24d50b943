"""Every rule system runs through the same generic combat code: state from
``combat_state``, a declaration form from ``action_fields``, initiative and
resolution, and a page that renders."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

import rules
from combat import services
from combat.forms import DeclarationForm
from combat.models import LogEntry
from combat.tests.conftest import make_thread
from rules.base import SeededRandom


def _minimal_declaration(system):
    data = {}
    for f in system.action_fields():
        if f.required and f.kind == "choice":
            data[f.path] = f.default if f.default is not None else f.choices[0][0]
    return data


@pytest.mark.parametrize("slug", ["ambre", "clefs-de-l-aube", "sms", "altaride"])
def test_it_runs_a_round_in_every_system(db, settings, slug):
    from conftest import make_table

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    t = make_table(slug, prefix=slug[:3])
    system = rules.get_system(slug)
    thread = make_thread(t.campaign, t.gm)
    encounter = services.create_encounter(t.gm, thread, title=f"Combat {slug}")
    a, b = services.add_participant(t.gm, encounter, name="PNJ", count=2, side="opponents")
    assert a.state == system.combat_state(system.default_sheet(), {})
    form = DeclarationForm(encounter=encounter, action_fields=system.action_fields(), prefix="x")
    assert "target" in form.fields and len(form.fields) > 1
    services.start_encounter(t.gm, encounter)
    services.declare_action(t.gm, a, data=_minimal_declaration(system), target=b)
    services.reveal_declarations(t.gm, encounter, rng=SeededRandom(3))
    count = LogEntry.objects.count()
    try:
        entry = services.resolve_next_step(t.gm, encounter, rng=SeededRandom(3))
    except ValidationError as exc:  # the rules need more than the minimal declaration: field errors, nothing saved
        assert exc.message_dict
        assert LogEntry.objects.count() == count
    else:
        assert entry.kind == "step" and entry.detail["result"]["system"] == system.slug
    client = Client()
    client.force_login(t.gm)
    assert client.get(reverse("combat:detail", args=[encounter.pk])).status_code == 200
