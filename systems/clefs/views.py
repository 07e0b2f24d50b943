"""The creation roll's button (the wizard's "aspects" step posts here)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from characters import access
from characters.views.common import error_messages, posted_version
from systems.clefs import services


@login_required
@require_POST
def creation_roll(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk, write=True)
    try:
        services.clefs_creation_roll(
            request.user,
            character,
            aspect_method=request.POST.get("aspect_method", ""),
            means_method=request.POST.get("means_method", ""),
            expected_version=posted_version(request),
        )
    except ValidationError as exc:
        messages.error(request, " ".join(error_messages(exc)))
    except PermissionDenied as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("The dice are rolled."))
    return redirect("characters:wizard_step", pk=pk, step="aspects")
