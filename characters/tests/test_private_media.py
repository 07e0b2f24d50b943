"""Issue 18 item 5: portraits are served through an authorization check, under unguessable names;
and an image's pixel count is bounded before it is decoded."""

from __future__ import annotations

import io
import re
import struct
import zlib
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image

from api.tests.conftest import token_client
from characters import services
from characters.models import Character
from characters.tests.conftest import client_for, make_character
from conftest import make_table

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Any) -> None:
    settings.MEDIA_ROOT = tmp_path


def _png(size: tuple[int, int] = (600, 400)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (20, 120, 30)).save(out, format="PNG")
    return out.getvalue()


def _with_portrait(table: Any, **kwargs: Any) -> Character:
    character = make_character(table, **kwargs)
    upload = SimpleUploadedFile("me.png", _png(), content_type="image/png")
    return services.set_portrait(table.gm, character, upload=upload)


def test_a_private_portrait_is_served_to_members_only(table: Any) -> None:
    character = _with_portrait(table)
    url = character.portrait.url
    assert url.startswith("/characters/media/portraits/")
    assert re.fullmatch(r"/characters/media/portraits/[\w-]{32}\.jpg", url), url
    assert "character-" not in url
    for user in (table.gm, table.player, table.player2, table.spectator):
        response = client_for(user).get(url)
        assert response.status_code == 200, user
        assert response["Content-Type"] == "image/jpeg" and "private" in response["Cache-Control"]
        assert b"".join(response.streaming_content)[:2] == b"\xff\xd8"
    for user in (None, table.outsider):
        assert client_for(user).get(url).status_code == 404
    # No public /media/ route, whatever the file name.
    assert Client().get("/media/" + character.portrait.name).status_code == 404
    # The API gives the same checked URL.
    api = token_client(table.player2).get(f"/api/v1/characters/{character.pk}/").json()
    assert api["portrait"].endswith(url)


def test_an_npc_portrait_is_the_gms(table: Any) -> None:
    npc = _with_portrait(table, is_npc=True, owner=table.gm)
    assert client_for(table.gm).get(npc.portrait.url).status_code == 200
    assert client_for(table.player).get(npc.portrait.url).status_code == 404


def test_a_public_campaigns_portrait_is_public(db: Any) -> None:
    public = make_table("altaride", is_public=True, prefix="pm")
    character = _with_portrait(public)
    assert Client().get(character.portrait.url).status_code == 200


def test_each_upload_gets_a_new_random_name_and_the_old_file_goes(table: Any) -> None:
    first = _with_portrait(table)
    old_name = first.portrait.name
    again = services.set_portrait(table.gm, first, upload=SimpleUploadedFile("b.png", _png(), "image/png"))
    assert again.portrait.name != old_name
    assert client_for(table.gm).get("/characters/media/" + old_name).status_code == 404


def test_the_proxy_sends_the_file_when_configured(table: Any, settings: Any) -> None:
    character = _with_portrait(table)
    settings.TABLEE_MEDIA_ACCEL_REDIRECT = "/protected-media/"
    response = client_for(table.player).get(character.portrait.url)
    assert response["X-Accel-Redirect"] == "/protected-media/" + character.portrait.name
    assert response.content == b""
    settings.TABLEE_MEDIA_ACCEL_REDIRECT = ""
    settings.TABLEE_MEDIA_SENDFILE = True
    response = client_for(table.player).get(character.portrait.url)
    assert response["X-Sendfile"] == character.portrait.path
    assert client_for(table.outsider).get(character.portrait.url).status_code == 404


def _huge_png(width: int, height: int) -> bytes:
    """A tiny file announcing a huge image (a decompression bomb's header)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")
    )


def test_an_image_with_too_many_pixels_is_refused_before_decoding(table: Any, settings: Any) -> None:
    character = make_character(table)
    bomb = SimpleUploadedFile("bomb.png", _huge_png(8000, 5000), content_type="image/png")  # 40 Mpx
    with pytest.raises(ValidationError) as exc:
        services.set_portrait(table.player, character, upload=bomb)
    assert "portrait" in exc.value.message_dict
    settings.TABLEE_MAX_IMAGE_PIXELS = 100 * 100
    with pytest.raises(ValidationError):
        services.set_portrait(
            table.player, character, upload=SimpleUploadedFile("b.png", _png((200, 200)), "image/png")
        )
    character.refresh_from_db()
    assert not character.portrait
