"""Portrait upload (size limit, re-encoding, bad files) and JSON export/import, print page."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from characters.models import Character
from characters.tests.conftest import client_for, make_character, valid_ambre_sheet
from conftest import make_table

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Any) -> None:
    settings.MEDIA_ROOT = tmp_path


def _png(size: tuple[int, int] = (900, 600)) -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", size, (200, 30, 30, 128)).save(out, format="PNG")
    return out.getvalue()


def test_it_reencodes_an_uploaded_portrait(table: Any) -> None:
    character = make_character(table)
    upload = SimpleUploadedFile("me.png", _png(), content_type="image/png")
    response = client_for(table.player).post(f"/characters/{character.pk}/portrait/", {"portrait": upload})
    assert response.status_code == 302
    character.refresh_from_db()
    assert character.portrait.name.endswith(".jpg")
    with Image.open(character.portrait.path) as image:
        assert image.format == "JPEG" and max(image.size) == 512


def test_it_refuses_bad_and_oversized_files_with_a_clear_message(table: Any, settings: Any) -> None:
    character = make_character(table)
    client = client_for(table.player)
    bad = SimpleUploadedFile("me.png", b"<?php echo 'pwned'; ?>", content_type="image/png")
    response = client.post(f"/characters/{character.pk}/portrait/", {"portrait": bad}, follow=True)
    assert "pas une image" in response.content.decode() or "not an image" in response.content.decode()
    settings.TABLEE_MAX_PORTRAIT_BYTES = 1000
    big = SimpleUploadedFile("big.png", _png((300, 300)) + b"\0" * 2000, content_type="image/png")
    response = client.post(f"/characters/{character.pk}/portrait/", {"portrait": big}, follow=True)
    assert "trop" in response.content.decode() or "too large" in response.content.decode()
    character.refresh_from_db()
    assert not character.portrait
    other = SimpleUploadedFile("x.png", _png(), content_type="image/png")
    assert (
        client_for(table.player2).post(f"/characters/{character.pk}/portrait/", {"portrait": other}).status_code == 404
    )


def test_it_exports_and_reimports_into_another_campaign_of_the_same_system(table: Any) -> None:
    character = make_character(table, sheet=valid_ambre_sheet("Benedict"), name="Benedict", status="approved")
    character.private_background = "Le meilleur stratège."
    character.save()
    response = client_for(table.player).get(f"/characters/{character.pk}/export.json")
    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    data = json.loads(response.content)
    assert data["system"] == "ambre" and data["sheet"] == character.sheet
    other = make_table("ambre", prefix="o")
    upload = SimpleUploadedFile("benedict.json", response.content, content_type="application/json")
    response = client_for(other.player).post(f"/characters/campaign/{other.campaign.pk}/import/", {"file": upload})
    assert response.status_code == 302
    copy = Character.objects.get(campaign=other.campaign)
    assert (copy.name, copy.sheet, copy.status, copy.owner) == ("Benedict", character.sheet, "draft", other.player)
    assert copy.private_background == "Le meilleur stratège."


def test_it_refuses_an_export_of_another_system_or_garbage(table: Any) -> None:
    character = make_character(table, sheet=valid_ambre_sheet())
    payload = client_for(table.player).get(f"/characters/{character.pk}/export.json").content
    other = make_table("sms", prefix="s")
    url = f"/characters/campaign/{other.campaign.pk}/import/"
    client = client_for(other.player)
    response = client.post(url, {"file": SimpleUploadedFile("c.json", payload)})
    assert response.status_code == 400
    assert "another rule system" in response.content.decode() or "autre système" in response.content.decode()
    response = client.post(url, {"file": SimpleUploadedFile("c.json", b"{not json")})
    assert response.status_code == 400
    broken = json.loads(payload)
    broken["system"] = "sms"
    broken["sheet"] = {"modules": "beaucoup"}
    response = client.post(url, {"file": SimpleUploadedFile("c.json", json.dumps(broken).encode())})
    assert response.status_code == 400 and "Liste attendue." in response.content.decode()
    assert not Character.objects.filter(campaign=other.campaign).exists()
    outsider = client_for(table.outsider)
    assert outsider.post(url, {"file": SimpleUploadedFile("c.json", payload)}).status_code == 404


def test_it_prints_the_full_sheet(table: Any) -> None:
    character = make_character(table, sheet=valid_ambre_sheet())
    html = client_for(table.gm).get(f"/characters/{character.pk}/print/").content.decode()
    assert "data-print" in html and 'data-key="life"' in html
    assert client_for(table.spectator).get(f"/characters/{character.pk}/print/").status_code == 404
