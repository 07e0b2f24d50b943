"""The templates' button (the wizard's race and archetype steps post here)."""

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
from systems.sms import services


@login_required
@require_POST
def template(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk, write=True)
    kind = request.POST.get("kind", "")
    try:
        services.apply_template(
            request.user,
            character,
            kind=kind,
            key=request.POST.get("key", ""),
            expected_version=posted_version(request),
        )
    except ValidationError as exc:
        messages.error(request, " ".join(error_messages(exc)))
    except PermissionDenied as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("Template applied."))
    return redirect("characters:wizard_step", pk=pk, step="archetype" if kind == "archetype" else "race")
