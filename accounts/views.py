from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _

from accounts import services
from accounts.forms import ProfileForm


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    profile = request.user.profile
    if request.method == "POST":
        form = ProfileForm(request.POST, instance=profile)
        if form.is_valid():
            services.update_profile(request.user, **form.cleaned_data)
            translation.activate(form.cleaned_data["language"])
            messages.success(request, _("Profile saved."))
            response = redirect("accounts:profile")
            response.set_cookie("tablee_language", form.cleaned_data["language"], samesite="Lax")
            return response
    else:
        form = ProfileForm(instance=profile)
    return render(request, "accounts/profile.html", {"form": form})
