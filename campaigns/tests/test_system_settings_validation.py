"""Campaign settings are validated by the system's own ``validate_settings`` (issue 16)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from api.tests.conftest import assert_error, token_client
from campaigns import services
from conftest import make_table

pytestmark = pytest.mark.django_db

BAD = [{"key": "forge", "name": "Forge", "formula": "FOO+BAR"}]
GOOD = [{"key": "forge", "name": "Forge", "formula": "HAB+VIG"}]


@pytest.fixture
def altaride() -> Any:
    return make_table("altaride")


def test_the_list_editor_refuses_an_invalid_formula_at_its_field_in_french(client: Any, altaride: Any) -> None:
    """The settings page edits a catalogue through its list editor (#23); the formula is the system's check."""
    client.force_login(altaride.gm)
    url = f"/campaigns/{altaride.campaign.slug}/settings/list/skill_catalogue/"
    row = {f"s:skill_catalogue.0.{k}": v for k, v in {**BAD[0], "category": "intellectuelle"}.items()}
    response = client.post(url, {"n:skill_catalogue": "1", **row})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Formule invalide" in html and "Réglages enregistrés" not in html
    altaride.campaign.refresh_from_db()
    assert not altaride.campaign.system_settings.get("skill_catalogue")
    row["s:skill_catalogue.0.formula"] = "HAB+VIG"
    response = client.post(url, {"n:skill_catalogue": "1", **row})
    assert response.status_code == 302
    altaride.campaign.refresh_from_db()
    assert altaride.campaign.system_settings["skill_catalogue"][0]["formula"] == "HAB+VIG"


def test_the_service_refuses_a_duplicate_key_and_a_wrong_type(altaride: Any) -> None:
    with pytest.raises(ValidationError) as exc:
        services.validate_system_settings("altaride", {"skill_catalogue": GOOD + GOOD})
    assert "system__skill_catalogue__1__key" in exc.value.message_dict
    with pytest.raises(ValidationError) as exc:
        services.validate_system_settings("altaride", {"skill_catalogue": BAD})
    assert "Formule invalide" in exc.value.message_dict["system__skill_catalogue__0__formula"][0]
    with pytest.raises(ValidationError) as exc:
        services.validate_system_settings("altaride", {"creation_leftover_kept": "oui"})
    assert "system__creation_leftover_kept" in exc.value.message_dict
    assert services.validate_system_settings("altaride", {"skill_catalogue": GOOD}) == {"skill_catalogue": GOOD}


def test_the_api_refuses_an_invalid_formula_with_a_field_error(altaride: Any) -> None:
    api = token_client(altaride.gm)
    url = f"/api/v1/campaigns/{altaride.campaign.pk}/"
    body = assert_error(
        api.patch(url, {"system_settings": {"skill_catalogue": BAD}}, format="json", HTTP_ACCEPT_LANGUAGE="fr"),
        400,
        "invalid",
        "system_settings.skill_catalogue.0.formula",
    )
    assert any("Formule invalide" in e["message"] for e in body["errors"]), body
    altaride.campaign.refresh_from_db()
    assert not altaride.campaign.system_settings.get("skill_catalogue")
    response = api.patch(url, {"system_settings": {"skill_catalogue": GOOD}}, format="json")
    assert response.status_code == 200
    altaride.campaign.refresh_from_db()
    assert altaride.campaign.system_settings["skill_catalogue"] == GOOD
