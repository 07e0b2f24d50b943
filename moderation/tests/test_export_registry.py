"""'My data' is assembled from each app's registered exporter, unchanged (issue 16)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from api.services import create_token
from campaigns import services as campaign_services
from moderation import services
from moderation.tests.conftest import verify_email

pytestmark = pytest.mark.django_db

KEYS = [
    "format", "version", "exported_at", "account", "emails", "memberships", "posts", "rolls", "characters",
    "reports_filed", "suspensions", "api_tokens",
]  # fmt: skip


def _scenario(table: Any, thread: Any) -> None:
    from characters.ledger import append_entry
    from characters.models import Character

    verify_email(table.player)
    post = campaign_services.create_post(table.player, thread, body="Mon texte", roll_requests=[{"expression": "1d20"}])
    campaign_services.edit_post(table.player, post, body="Mon texte corrigé")
    campaign_services.create_post(table.player2, thread, body="Texte d'un autre")
    hero = Character.objects.create(
        campaign=table.campaign, owner=table.player, name="Corwin", system="ambre", private_background="Secret"
    )
    append_entry(hero, "karma", 5, "gm_award", created_by=table.gm)
    other = campaign_services.create_post(table.player2, thread, body="Insulte")
    services.report_target(table.player, post=other, reason="harassment", details="Pas gentil")
    services.suspend_user(table.moderator, table.player, reason="Calmez-vous", days=1)
    create_token(table.player, name="Mon script")


_ISO = re.compile(r"\d{4}-\d\d-\d\dT[0-9:.]+(\+00:00|Z)?")


def _normalised(data: dict[str, Any]) -> Any:
    """The export with what changes from run to run (times, ids, hashes, prefixes) blanked."""
    text = _ISO.sub("<time>", json.dumps(data, sort_keys=False))
    out = json.loads(text)
    for post in out["posts"]:
        post["id"] = "<id>"
    for roll in out["rolls"]:
        roll["post_id"], roll["hash"] = "<id>", "<hash>"
        roll["resolution"], roll["request"] = "<dice>", "<dice>"
    for character in out["characters"]:
        character["id"] = "<id>"
    for token in out["api_tokens"]:
        token["prefix"] = "<prefix>"
    return out


def test_the_export_keeps_its_keys_in_order(table: Any, thread: Any) -> None:
    _scenario(table, thread)
    data = services.export_account_data(table.player)
    assert list(data) == KEYS
    json.dumps(data)


def test_the_export_is_unchanged(table: Any, thread: Any) -> None:
    _scenario(table, thread)
    got = _normalised(services.export_account_data(table.player))
    assert got == EXPECTED


#: Recorded from the export before it was split into registered exporters.
EXPECTED: dict[str, Any] = {
    "format": "tablee-account-export",
    "version": 1,
    "exported_at": "<time>",
    "account": {
        "username": "player",
        "email": "player@example.test",
        "date_joined": "<time>",
        "last_login": None,
        "display_name": "",
        "language": "fr",
        "bio": "",
    },
    "emails": [{"email": "player@example.test", "verified": True, "primary": True}],
    "memberships": [
        {"campaign__slug": "table-ambre", "campaign__title": "Table ambre", "role": "player", "joined": "<time>"}
    ],
    "posts": [
        {
            "id": "<id>",
            "campaign__slug": "table-ambre",
            "thread__title": "La cour de Rebma",
            "number": 2,
            "visibility": "public",
            "body": "Mon texte corrigé",
            "created": "<time>",
            "edited": "<time>",
            "hidden": False,
            "previous_versions": [{"body": "Mon texte", "created": "<time>"}],
        }
    ],
    "rolls": [
        {
            "campaign__slug": "table-ambre",
            "sequence": 1,
            "post_id": "<id>",
            "kind": "expression",
            "system": "dice",
            "label": "",
            "request": "<dice>",
            "resolution": "<dice>",
            "secret": False,
            "created": "<time>",
            "hash": "<hash>",
        }
    ],
    "characters": [
        {
            "id": "<id>",
            "campaign__slug": "table-ambre",
            "name": "Corwin",
            "system": "ambre",
            "status": "draft",
            "sheet": {},
            "schema_version": 1,
            "public_description": "",
            "private_background": "Secret",
            "created": "<time>",
            "updated": "<time>",
            "ledger": [
                {
                    "currency": "karma",  # an Ambre hero: its system's currency (issue 16)
                    "amount": 5,
                    "kind": "gm_award",
                    "note": "",
                    "approval": "approved",
                    "created": "<time>",
                }
            ],
        }
    ],
    "reports_filed": [
        {
            "kind": "post",
            "target_label": "La cour de Rebma #4",
            "reason": "harassment",
            "details": "Pas gentil",
            "status": "open",
            "created": "<time>",
        }
    ],
    "suspensions": [{"until": "<time>", "reason": "Calmez-vous", "created": "<time>", "lifted_at": None}],
    "api_tokens": [{"name": "Mon script", "prefix": "<prefix>", "created": "<time>", "revoked_at": None}],
}


def test_each_app_registers_its_exporter() -> None:
    from config.exporters import registered_exporters

    assert registered_exporters() == ["accounts", "campaigns", "characters", "moderation", "api"]


def test_two_exporters_may_not_claim_the_same_key(table: Any) -> None:
    from config import exporters

    exporters.register_exporter("zz-test", lambda user: {"posts": []}, order=99)
    try:
        with pytest.raises(ValueError, match="posts"):
            exporters.export_parts(table.player)
    finally:
        exporters._EXPORTERS.pop("zz-test")


def test_moderation_builds_the_export_without_importing_other_apps_models() -> None:
    import inspect

    source = inspect.getsource(services.export_account_data)
    assert "import" not in source and "objects" not in source
