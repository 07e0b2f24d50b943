"""The token page (*jetons d'API*), reached from the profile: create, revoke."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from api import services


class TokenForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Token name"),
        max_length=80,
        help_text=gettext_lazy("What the token is for, e.g. “dice bot” or “my script”."),
    )


@login_required
def tokens(request: HttpRequest) -> HttpResponse:
    """List the member's tokens; POST creates one and shows its key once."""
    new_key = None
    if request.method == "POST":
        form = TokenForm(request.POST)
        if form.is_valid():
            try:
                token, new_key = services.create_token(request.user, name=form.cleaned_data["name"])
            except ValidationError as exc:
                for field, errors in exc.message_dict.items():
                    for message in errors:
                        form.add_error(field if field in form.fields else None, message)
            else:
                messages.success(request, _("Token “%(name)s” created.") % {"name": token.name})
                form = TokenForm()
    else:
        form = TokenForm()
    context = {
        "form": form,
        "new_key": new_key,
        "tokens": request.user.api_tokens.all()[:100],
        "docs_url": reverse("api:docs"),
    }
    return render(request, "api/tokens.html", context)


@login_required
@require_POST
def revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    token = services.revoke_token(request.user, token_id)
    messages.success(request, _("Token “%(name)s” revoked.") % {"name": token.name})
    return redirect("api:token-page")


@csrf_exempt
def not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    """Unknown URLs under ``/api/``: the API's JSON 404 (with the slash-append redirect kept)."""
    from django.http import HttpResponsePermanentRedirect, JsonResponse
    from django.urls import Resolver404, resolve

    if not request.path.endswith("/"):
        try:
            match = resolve(request.path + "/")
        except Resolver404:
            match = None
        if match is not None and match.func is not not_found and request.method in ("GET", "HEAD"):
            query = request.META.get("QUERY_STRING", "")
            return HttpResponsePermanentRedirect(request.path + "/" + (f"?{query}" if query else ""))
    return JsonResponse({"code": "not_found", "detail": _("Not found."), "errors": []}, status=404)
