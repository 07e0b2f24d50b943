"""Status transitions: submit, approve, return, retire/dead."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from characters import access, services
from characters.views.common import error_messages, posted_version


# ---------------------------------------------------------------------------
# Status transitions
# ---------------------------------------------------------------------------
def _action(request: HttpRequest, pk: int, fn: Any, success: str, **kwargs: Any) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk, write=True)
    try:
        fn(request.user, character, **kwargs)
    except services.SheetInvalid as exc:
        messages.error(request, _("The sheet is not valid yet:") + " " + " ".join(error_messages(exc)[:8]))
    except ValidationError as exc:
        messages.error(request, " ".join(error_messages(exc)))
    except PermissionDenied as exc:
        messages.error(request, str(exc) or _("You may not do this."))
    else:
        messages.success(request, success)
    return redirect("characters:detail", pk=pk)


@login_required
@require_POST
def submit(request: HttpRequest, pk: int) -> HttpResponse:
    return _action(
        request, pk, services.submit_character, _("Submitted to the GM."), expected_version=posted_version(request)
    )


@login_required
@require_POST
def approve(request: HttpRequest, pk: int) -> HttpResponse:
    return _action(
        request, pk, services.approve_character, _("Character approved."), comment=request.POST.get("comment", "")
    )


@login_required
@require_POST
def return_to_player(request: HttpRequest, pk: int) -> HttpResponse:
    return _action(
        request, pk, services.return_character, _("Returned to the player."), comment=request.POST.get("comment", "")
    )


@login_required
@require_POST
def set_status(request: HttpRequest, pk: int) -> HttpResponse:
    return _action(request, pk, services.set_status, _("Status changed."), status=request.POST.get("status", ""))
