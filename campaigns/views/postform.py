"""The post form and its live fragments: test fields, tests from the sheet, odds before rolling."""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import get_script_prefix, reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts.models import display_name
from campaigns import access, dice, play, services
from campaigns.forms import (
    PostForm,
    collect_rules_values,
)
from campaigns.models import (
    Campaign,
    Membership,
    Thread,
)
from campaigns.post_html import ReplyForm
from campaigns.views.common import _odds_text, page_of
from campaigns.voices import voices
from config.prepared import PreparedQuery
from rules.base import RulesError


def _post_form(request: HttpRequest, campaign: Campaign, data: Any = None, **kwargs: Any) -> PostForm:
    return _form_inputs(request, campaign).build(data, **kwargs)


def _reply_form(request: HttpRequest, campaign: Campaign, thread: Thread, **kwargs: Any) -> ReplyForm:
    """The thread page's unbound reply form, built only when its HTML is not kept already (see
    :class:`campaigns.post_html.ReplyForm`): the queries it needs are run, the form is not made."""
    inputs = _form_inputs(request, campaign)
    return ReplyForm(inputs.key(thread, kwargs), lambda: inputs.build(None, **kwargs), campaign)


class _FormInputs:
    """What a :class:`PostForm` is made of: the campaign, the member's voices, the other members."""

    def __init__(
        self, campaign: Campaign, characters: list[Any], sheet_characters: list[Any], members: Any, is_gm: bool
    ):
        self.campaign, self.characters, self.sheet_characters = campaign, characters, sheet_characters
        self.members, self.is_gm = members, is_gm

    def build(self, data: Any = None, **kwargs: Any) -> PostForm:
        return PostForm(
            data,
            campaign=self.campaign,
            characters=self.characters,
            members=self.members,
            is_gm=self.is_gm,
            sheet_characters=self.sheet_characters,
            sheet_options=play.sheet_tests_of,
            **kwargs,
        )

    def key(self, thread: Thread, kwargs: dict[str, Any]) -> bytes:
        """Every value the form is made of (an unbound form's HTML depends on nothing else): the sheet
        tests read the campaign's system and settings and each character's current sheet."""
        campaign = self.campaign
        values = (
            get_language(),
            get_script_prefix(),
            thread.pk,
            campaign.pk,
            campaign.slug,
            campaign.system,
            repr(campaign.system_settings),
            self.is_gm,
            tuple((c.pk, c.name) for c in self.characters),
            tuple((c.pk, c.name, c.status, c.is_npc, c.schema_version, repr(c.sheet)) for c in self.sheet_characters),
            tuple(self.members),
            repr(sorted(kwargs.items())),
        )
        return hashlib.blake2b(repr(values).encode(), digest_size=20).digest()


def _other_members(campaign_id: int, user_id: int) -> QuerySet[Membership]:
    """The campaign's other members, in the order they joined, with the two columns a name needs."""
    return (
        Membership.objects.filter(campaign_id=campaign_id)
        .exclude(user_id=user_id)
        .select_related("user__profile")
        .only("user_id", "user__username", "user__profile__display_name")
        .order_by("pk")
    )


#: On every thread page (the reply form's recipients): compiled once per process (config.prepared).
_OTHER_MEMBERS = PreparedQuery(
    _other_members, {"campaign_id": (910_000_001, 920_000_002), "user_id": (970_000_003, 980_000_004)}
)


def _form_inputs(request: HttpRequest, campaign: Campaign) -> _FormInputs:
    is_gm = access.is_gm(request.user, campaign)
    # A player: one query (their voices; those approved can also roll from their sheet).
    characters, sheet_characters = voices().post_voices(request.user, campaign, is_gm=is_gm)
    for character in sheet_characters:
        character.campaign = campaign
    # The other members' ids and names (a profile's display name, else the username).
    members = [
        (m.user_id, display_name(m.user)) for m in _OTHER_MEMBERS.all(campaign_id=campaign.pk, user_id=request.user.pk)
    ]
    return _FormInputs(campaign, characters, sheet_characters, members, is_gm)


def _prefill(request: HttpRequest) -> dict[str, Any]:
    """``?character=&test=`` (from a sheet's "What you can roll" line): the test the form opens with."""
    character, test = request.GET.get("character", ""), request.GET.get("test", "")
    if not character or not test:
        return {}
    # The post speaks as that character when it is one of the author's voices (the choice ignores others).
    return {"initial": {"sheet_character": character[:20], "sheet_test": test[:100], "character": character[:20]}}


def roll_fields(request: HttpRequest, slug: str) -> HttpResponse:
    """htmx fragment: the fields of the chosen system test, generated from its declaration."""
    campaign = access.get_campaign_for_user(request.user, slug)
    if not access.can_post(request.user, campaign):
        raise Http404
    form = _post_form(request, campaign, test_kind=request.GET.get("test_kind", ""))
    return render(request, "campaigns/partials/test_fields.html", {"form": form})


@login_required
def roll_from_sheet(request: HttpRequest, slug: str) -> HttpResponse:
    """A sheet line's "Roll" control: open the chosen thread's post form with the test prefilled."""
    campaign = access.get_campaign_for_user(request.user, slug)
    if not access.can_post(request.user, campaign):
        raise Http404
    try:
        thread_id = int(request.GET.get("thread", ""))
    except ValueError:
        raise Http404 from None
    thread = get_object_or_404(Thread, pk=thread_id, campaign=campaign)
    if thread.locked and not access.is_gm(request.user, campaign):
        raise Http404
    query = urlencode({"character": request.GET.get("character", "")[:20], "test": request.GET.get("test", "")[:100]})
    url = reverse("campaigns:thread", kwargs={"thread_id": thread.pk})
    return redirect(f"{url}?page={page_of(max(thread.post_count, 1))}&{query}#reply")


def sheet_test_fields(request: HttpRequest, slug: str) -> HttpResponse:
    """htmx fragment: what the chosen character can roll, the values it reads and the inputs to declare."""
    campaign = access.get_campaign_for_user(request.user, slug)
    if not access.can_post(request.user, campaign):
        raise Http404
    initial = {k: request.GET.get(k, "")[:100] for k in ("sheet_character", "sheet_test")}
    form = _post_form(request, campaign, initial=initial)
    return render(request, "campaigns/partials/sheet_test_fields.html", {"form": form})


def _sheet_preview(request: HttpRequest, campaign: Campaign, form: PostForm) -> tuple[str, list[str], str]:
    """Odds of the chosen sheet test, built by the rules from the sheet (nothing rolled nor stored)."""
    lang = get_language() or "fr"
    errors = [
        _("%(field)s: %(error)s") % {"field": form.fields[name].label, "error": message}
        for name, messages_ in form.errors.items()
        if name.startswith("declared__")
        for message in messages_
    ]
    sheet = form.sheet_request() if not errors else None
    if sheet is None:
        return "", errors, ""
    character = form.sheet_characters[str(sheet["character_id"])]
    try:
        test, source = services.build_sheet_test(
            request.user, campaign, character, sheet["sheet_test"]["test"], sheet["sheet_test"]["declared"]
        )
        odds = dice.preview_odds(campaign, test)
    except RulesError as exc:
        return "", [e.message.get(lang) for e in exc.errors], ""
    return _odds_text(odds, lang), [], play.reads_text(source, lang)


def roll_preview(request: HttpRequest, slug: str) -> HttpResponse:
    """htmx fragment: the odds of the system test being filled in, before anything is rolled.

    Fed by the post form as the player types (the SMS spell builder shows the spell's difficulty
    and energy cost). Nothing is rolled nor stored; the numbers come from ``rules`` only.
    """
    campaign = access.get_campaign_for_user(request.user, slug)
    if not access.can_post(request.user, campaign):
        raise Http404
    form = _post_form(request, campaign, data=request.GET)
    form.is_valid()
    if request.GET.get("sheet_test"):
        text, errors, reads = _sheet_preview(request, campaign, form)
        context = {"preview": text, "preview_errors": errors, "preview_reads": reads}
        return render(request, "campaigns/partials/roll_preview.html", context)
    errors = [
        _("%(field)s: %(error)s") % {"field": form.fields[name].label, "error": message}
        for name, messages_ in form.errors.items()
        if name.startswith("test__")
        for message in messages_
    ]
    text = ""
    kind = form.cleaned_data.get("test_kind") if hasattr(form, "cleaned_data") else ""
    if kind and form.test_specs and not errors:
        test = collect_rules_values(form.cleaned_data, form.test_specs, "test__")
        test["kind"] = kind
        try:
            odds = dice.preview_odds(campaign, test)
        except RulesError as exc:
            errors = [e.message.get(get_language() or "fr") for e in exc.errors]
        else:
            text = _odds_text(odds, get_language() or "fr")
    return render(request, "campaigns/partials/roll_preview.html", {"preview": text, "preview_errors": errors})
