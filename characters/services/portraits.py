"""Portraits: uploaded images re-encoded by Pillow."""

from __future__ import annotations

import io
from typing import Any

from django.conf import settings as django_settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils.translation import gettext as _

from campaigns.access import is_gm
from characters import access
from characters.models import Character
from characters.services.base import (
    lock_character,
    require_full_sheet,
)


# ---------------------------------------------------------------------------
# Portrait
# ---------------------------------------------------------------------------
def set_portrait(actor: Any, character: Character, *, upload: Any) -> Character:
    """Store a portrait re-encoded by Pillow (max ``TABLEE_MAX_PORTRAIT_BYTES``, 512 px)."""
    from PIL import Image, UnidentifiedImageError

    require_full_sheet(actor, character)
    if not (access.is_owner(actor, character) or is_gm(actor, character.campaign)):
        raise PermissionDenied(_("Only the owner and the GMs change the portrait."))
    limit = django_settings.TABLEE_MAX_PORTRAIT_BYTES
    if upload is None:
        raise ValidationError({"portrait": [_("Choose an image file.")]})
    if upload.size > limit:
        raise ValidationError(
            {"portrait": [_("This image is too large (at most %(size)s KB).") % {"size": limit // 1024}]}
        )
    try:
        data = upload.read(limit + 1)
        max_pixels = django_settings.TABLEE_MAX_IMAGE_PIXELS
        Image.MAX_IMAGE_PIXELS = max_pixels  # Pillow's own bomb check (an error beyond twice this)
        with Image.open(io.BytesIO(data)) as probe:
            # The header gives the size: refuse before a single pixel is decoded.
            if probe.width * probe.height > max_pixels:
                raise ValidationError({"portrait": [_("This image has too many pixels.")]})
            probe.verify()
        with Image.open(io.BytesIO(data)) as image:
            if image.width * image.height > max_pixels:
                raise ValidationError({"portrait": [_("This image has too many pixels.")]})
            image.draft("RGB", (1024, 1024))  # JPEG: decode at a reduced scale
            image = image.convert("RGB")
            image.thumbnail((512, 512))
            out = io.BytesIO()
            image.save(out, format="JPEG", quality=85)
    except ValidationError:
        raise
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ValidationError(
            {"portrait": [_("This file is not an image we can read (use JPEG, PNG, GIF or WebP).")]}
        ) from exc
    with transaction.atomic():
        locked = lock_character(character)
        old = locked.portrait.name if locked.portrait else ""
        locked.portrait.save("portrait.jpg", ContentFile(out.getvalue()), save=False)  # random name
        locked.save(update_fields=["portrait", "updated"])
        if old:
            transaction.on_commit(lambda: locked.portrait.storage.delete(old))
    return locked
