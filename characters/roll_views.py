"""The thread page's "spend experience to lower the die" form (its service: :mod:`characters.roll_spending`)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns import access
from campaigns.models import Roll
from characters.roll_spending import lower_roll_die


@login_required
@require_POST
def roll_lower(request: HttpRequest, roll_id: int) -> HttpResponse:
    """Spend experience to lower the die of one's own test (Altaride); the lowering is a new roll."""
    roll = get_object_or_404(Roll.objects.select_related("campaign", "post"), pk=roll_id)
    if not access.can_see_roll(request.user, roll) or roll.post_id is None:
        raise Http404
    try:
        lowered = lower_roll_die(request.user, roll, points=request.POST.get("points"))
    except ValidationError as exc:
        for error in exc.messages:
            messages.error(request, error)
    else:
        messages.success(request, _("Die lowered: roll #%(n)d records the new result.") % {"n": lowered.sequence})
    return redirect("campaigns:post", post_id=roll.post_id)
