"""The GM aids page: Clefs de l'Aube's combination names and difficulty levels, for the GMs only."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from conftest import make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def clefs(db: Any) -> Any:
    return make_table("clefs-de-l-aube", prefix="k")


@pytest.mark.parametrize("who", ["gm", "cogm"])
def test_it_shows_the_combination_names_to_the_gms(client: Any, clefs: Any, who: str) -> None:
    client.force_login(getattr(clefs, who))
    response = client.get(reverse("campaigns:gm_aids", args=[clefs.campaign.slug]))
    assert response.status_code == 200
    text = response.content.decode()
    assert "Physique (Ph)" in text and "Mystique (My)" in text
    # Physique × Puissance is «Force», Mystique × Perception «Sixième sens» (L370-L422).
    assert '<th scope="row">Puissance (Pu)</th><td>Force</td>' in text
    assert "Sixième sens" in text
    assert "légendaire" in text


def test_it_links_the_page_for_gms_only(client: Any, clefs: Any) -> None:
    url = reverse("campaigns:gm_aids", args=[clefs.campaign.slug])
    client.force_login(clefs.gm)
    assert url in client.get(reverse("campaigns:detail", args=[clefs.campaign.slug])).content.decode()
    client.force_login(clefs.player)
    assert url not in client.get(reverse("campaigns:detail", args=[clefs.campaign.slug])).content.decode()


@pytest.mark.parametrize("who", ["player", "spectator", "outsider", "moderator"])
def test_it_answers_404_to_everyone_else(client: Any, clefs: Any, who: str) -> None:
    client.force_login(getattr(clefs, who))
    assert client.get(reverse("campaigns:gm_aids", args=[clefs.campaign.slug])).status_code == 404


def test_it_sends_anonymous_visitors_to_log_in(client: Any, clefs: Any) -> None:
    response = client.get(reverse("campaigns:gm_aids", args=[clefs.campaign.slug]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_it_answers_404_for_a_system_without_gm_aids(client: Any) -> None:
    table = make_table("ambre", prefix="a")
    client.force_login(table.gm)
    assert client.get(reverse("campaigns:gm_aids", args=[table.campaign.slug])).status_code == 404
    page = client.get(reverse("campaigns:detail", args=[table.campaign.slug])).content.decode()
    assert "gm-aids" not in page
