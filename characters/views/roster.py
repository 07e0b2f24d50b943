"""A campaign's roster, my characters, creation and import."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns.access import get_campaign_for_user, is_gm, role_of
from campaigns.models import Membership, Role
from characters import plugins, services
from characters.forms import (
    ImportForm,
    NewCharacterForm,
)
from characters.models import ChangeRequest, Character
from characters.read import visible_characters
from characters.views.common import error_messages
from config import jsonlimits


# ---------------------------------------------------------------------------
# Roster, creation, import
# ---------------------------------------------------------------------------
def campaign_characters(request: HttpRequest, campaign_id: str) -> HttpResponse:
    campaign = get_campaign_for_user(request.user, campaign_id)
    gm = is_gm(request.user, campaign)
    qs = visible_characters(request.user, campaign).order_by("campaign", "name")  # the roster's order
    role = role_of(request.user, campaign)
    panels = plugins.roster_panels(request, campaign)
    return render(
        request,
        "characters/roster.html",
        {
            "campaign": campaign,
            "characters": list(qs),
            "is_gm": gm,
            "can_create": role in (Role.GM, Role.COGM, Role.PLAYER),
            "toolbar_panels": [p for p in panels if p.slot == "toolbar"],
            "main_panels": [p for p in panels if p.slot != "toolbar"],
        },
    )


@login_required
def character_new(request: HttpRequest, campaign_id: str) -> HttpResponse:
    campaign = get_campaign_for_user(request.user, campaign_id)
    gm = is_gm(request.user, campaign)
    form = NewCharacterForm(request.POST or None, can_make_npc=gm)
    if request.method == "POST" and form.is_valid():
        try:
            character = services.create_character(
                request.user,
                campaign,
                name=form.cleaned_data["name"],
                is_npc=form.cleaned_data.get("is_npc", False),
                public_description=form.cleaned_data.get("public_description", ""),
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        except PermissionDenied as exc:
            form.add_error(None, str(exc))
        else:
            return redirect("characters:wizard", pk=character.pk)
    return render(request, "characters/new.html", {"campaign": campaign, "form": form, "import_form": ImportForm()})


@login_required
@require_POST
def character_import(request: HttpRequest, campaign_id: str) -> HttpResponse:
    campaign = get_campaign_for_user(request.user, campaign_id)
    form = ImportForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            if upload.size > 2 * 1024 * 1024:
                raise ValidationError({"file": [_("This file is too large.")]})
            data = jsonlimits.loads(upload.read().decode("utf-8"))
        except jsonlimits.JSONTooDeep as exc:
            form.add_error("file", exc.message())
        except (ValueError, UnicodeDecodeError):
            form.add_error("file", _("This file is not valid JSON."))
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            try:
                character = services.import_character(request.user, campaign, data=data)
            except services.SheetInvalid as exc:
                form.add_error(None, error_messages(exc))
            except ValidationError as exc:
                form.add_error(None, exc)
            except PermissionDenied as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(request, _("Character imported as a draft."))
                return redirect("characters:detail", pk=character.pk)
    new_form = NewCharacterForm(can_make_npc=is_gm(request.user, campaign))
    return render(
        request, "characters/new.html", {"campaign": campaign, "form": new_form, "import_form": form}, status=400
    )


@login_required
def my_characters(request: HttpRequest) -> HttpResponse:
    """The user's characters, their campaigns' rosters and, for GMs, what awaits review."""
    memberships = list(Membership.objects.filter(user=request.user).select_related("campaign"))
    gm_campaigns = [m.campaign_id for m in memberships if m.role in (Role.GM, Role.COGM)]
    return render(
        request,
        "characters/mine.html",
        {
            "characters": list(Character.objects.filter(owner=request.user, is_npc=False).select_related("campaign")),
            "memberships": memberships,
            "to_review": list(
                Character.objects.filter(
                    campaign_id__in=gm_campaigns, status=Character.Status.SUBMITTED
                ).select_related("campaign")
            ),
            "changes": list(
                ChangeRequest.objects.filter(
                    character__campaign_id__in=gm_campaigns, status=ChangeRequest.Status.PENDING
                ).select_related("character", "author")
            ),
        },
    )
