"""System-specific creation helpers of the wizard."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from characters import access, services
from characters.views.common import _error_messages, _version

CLEFS_METHODS = {
    "aspect": ["ROLL_STANDARD", "ROLL_LOW", "FIXED_10"],
    "means": ["ROLL", "ZERO"],
}


@login_required
@require_POST
def clefs_roll(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk, write=True)
    try:
        services.clefs_creation_roll(
            request.user,
            character,
            aspect_method=request.POST.get("aspect_method", ""),
            means_method=request.POST.get("means_method", ""),
            expected_version=_version(request),
        )
    except ValidationError as exc:
        messages.error(request, " ".join(_error_messages(exc)))
    except PermissionDenied as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("The dice are rolled."))
    return redirect("characters:wizard_step", pk=pk, step="aspects")


@login_required
@require_POST
def sms_template(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk, write=True)
    kind = request.POST.get("kind", "")
    try:
        services.apply_template(
            request.user, character, kind=kind, key=request.POST.get("key", ""), expected_version=_version(request)
        )
    except ValidationError as exc:
        messages.error(request, " ".join(_error_messages(exc)))
    except PermissionDenied as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("Template applied."))
    return redirect("characters:wizard_step", pk=pk, step="archetype" if kind == "archetype" else "race")
