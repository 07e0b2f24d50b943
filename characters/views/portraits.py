"""Portraits: upload, and the authorized file view."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from characters import access, services
from characters.forms import (
    PortraitForm,
)
from characters.models import Character
from characters.views.review import _action


@login_required
@require_POST
def portrait(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk, write=True)
    form = PortraitForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, _("Choose an image file."))
        return redirect("characters:detail", pk=pk)
    return _action(
        request, character.pk, services.set_portrait, _("Portrait updated."), upload=form.cleaned_data["portrait"]
    )


def portrait_file(request: HttpRequest, name: str) -> HttpResponse:
    """A portrait, for whoever may see the character's public part (else 404).

    The file name is a random token; behind a proxy, ``TABLEE_MEDIA_ACCEL_REDIRECT``
    (nginx ``X-Accel-Redirect`` to an internal location) or ``TABLEE_MEDIA_SENDFILE``
    (``X-Sendfile``) hands the sending to it, otherwise Django streams the file.
    """
    if request.method not in ("GET", "HEAD") or ".." in name.split("/"):
        raise Http404
    character = Character.objects.select_related("campaign").filter(portrait=name).first()
    if character is None or not access.can_see_public(request.user, character):
        raise Http404
    storage = character.portrait.storage
    if not storage.exists(name):
        raise Http404
    accel = getattr(settings, "TABLEE_MEDIA_ACCEL_REDIRECT", "")
    if accel:
        response = HttpResponse(content_type="image/jpeg")
        response["X-Accel-Redirect"] = accel.rstrip("/") + "/" + name
    elif getattr(settings, "TABLEE_MEDIA_SENDFILE", False):
        response = HttpResponse(content_type="image/jpeg")
        response["X-Sendfile"] = storage.path(name)
    else:
        response = FileResponse(storage.open(name, "rb"), content_type="image/jpeg")
    # Never in a shared cache: who may see it depends on the visitor.
    response["Cache-Control"] = "private, max-age=3600"
    response["Vary"] = "Cookie"
    return response
