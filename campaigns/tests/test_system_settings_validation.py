"""Campaign settings are validated by the system's own ``validate_settings`` (issue 16)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from api.tests.conftest import assert_error, token_client
from campaigns import services
from conftest import make_table

pytestmark = pytest.mark.django_db

BAD = [{"key": "forge", "name": "Forge", "formula": "FOO+BAR"}]
GOOD = [{"key": "forge", "name": "Forge", "formula": "HAB+VIG"}]


@pytest.fixture
def altaride() -> Any:
    return make_table("altaride")


def _form(catalogue: list[dict[str, Any]]) -> dict[str, str]:
    return {
        "title": "Altaride",
        "language": "fr",
        "is_public": "on",
        "system__skill_catalogue": json.dumps(catalogue),
    }


def test_the_settings_page_refuses_an_invalid_formula_with_a_french_field_message(client: Any, altaride: Any) -> None:
    client.force_login(altaride.gm)
    url = reverse("campaigns:settings", args=[altaride.campaign.slug])
    response = client.post(url, _form(BAD), HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "system__skill_catalogue" in errors
    assert "Formule invalide" in errors["system__skill_catalogue"][0]
    html = response.content.decode()
    assert "Formule invalide" in html and "Réglages enregistrés" not in html
    altaride.campaign.refresh_from_db()
    assert altaride.campaign.title != "Altaride"  # nothing saved half-way
    assert not altaride.campaign.system_settings.get("skill_catalogue")

    response = client.post(url, _form(GOOD), follow=True)
    assert "Réglages enregistrés" in response.content.decode()
    altaride.campaign.refresh_from_db()
    assert altaride.campaign.system_settings["skill_catalogue"][0]["formula"] == "HAB+VIG"


def test_the_service_refuses_a_duplicate_key_and_a_wrong_type(altaride: Any) -> None:
    with pytest.raises(ValidationError) as exc:
        services.validate_system_settings("altaride", {"skill_catalogue": GOOD + GOOD})
    assert "system__skill_catalogue" in exc.value.message_dict
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
        "system_settings.skill_catalogue",
    )
    assert any("Formule invalide" in e["message"] for e in body["errors"]), body
    altaride.campaign.refresh_from_db()
    assert not altaride.campaign.system_settings.get("skill_catalogue")
    response = api.patch(url, {"system_settings": {"skill_catalogue": GOOD}}, format="json")
    assert response.status_code == 200
    altaride.campaign.refresh_from_db()
    assert altaride.campaign.system_settings["skill_catalogue"] == GOOD
