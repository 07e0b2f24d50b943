"""The sheet history and the comparison of two versions."""

from __future__ import annotations

import re

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from characters import access, plugins, services
from characters import sheetform as sf
from characters.forms import (
    CompareForm,
)
from characters.models import Character

# ---------------------------------------------------------------------------
# History
# ---------------------------------------------------------------------------
#: Reasons the services write in their writer's language ("brouillon enregistré"),
#: shown again in the reader's (the ones with a placeholder keep the writer's). The plug-ins declare theirs.
_VERSION_REASONS = (
    gettext_noop("created"),
    gettext_noop("GM edit"),
    gettext_noop("draft saved"),
    gettext_noop("profile edited"),
    gettext_noop("submitted for approval"),
    gettext_noop("approved"),
    gettext_noop("imported"),
    gettext_noop("brought back: %(reason)s"),
)


def _reason_in_reader_language(reason: str) -> str:
    """A stored reason in the reader's language; a reason with a placeholder ("brought back:
    %(reason)s") is matched in every language and written again with what it carried."""
    for msgid in _VERSION_REASONS + plugins.version_reasons():  # and those the plug-ins write
        forms = {msgid}
        for code, _name in settings.LANGUAGES:
            with translation.override(code):
                forms.add(_(msgid))
        if reason in forms:
            return _(msgid)
        if "%(" not in msgid:
            continue
        for form in forms:
            pattern = re.sub(r"%\\\(([a-z_]+)\\\)s", r"(?P<\1>.*)", re.escape(form))
            match = re.fullmatch(pattern, reason, flags=re.S)
            if match:
                return _(msgid) % match.groupdict()
    return reason


def history(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.get_character_for_user(request.user, pk, write=True)
    versions = list(character.versions.select_related("author").order_by("-version"))
    statuses = dict(Character.Status.choices)
    for v in versions:
        v.status_display = statuses.get(v.status, v.status)
        v.reason_display = _reason_in_reader_language(v.reason)
    data = request.GET.copy()
    if data.get("a") and not data.get("b"):  # "that version → now" (a roll's link to the sheet it read)
        data["b"] = str(character.version)
    form = CompareForm(data or None)
    comparison = None
    if request.GET and form.is_valid():
        by_number = {v.version: v for v in versions}
        a, b = by_number.get(form.cleaned_data["a"]), by_number.get(form.cleaned_data["b"])
        if a is None or b is None:
            form.add_error(None, _("Unknown version."))
        else:
            system = character.rule_system
            sheet_a = system.migrate_sheet(dict(a.sheet), a.schema_version)
            sheet_b = system.migrate_sheet(dict(b.sheet), b.schema_version)
            diff = sf.sheet_diff(system.sheet_fields(), sheet_a, sheet_b)
            if a.name != b.name:
                diff.insert(0, {"path": "name", "label": _("Name"), "before": a.name, "after": b.name})
            ev_a = services.evaluate_character(character, sheet_a)
            ev_b = services.evaluate_character(character, sheet_b)
            comparison = {
                "a": a,
                "b": b,
                "diff": diff,
                "derived_diff": sf.derived_diff(system, ev_a.derived or {}, ev_b.derived or {}),
            }
    return render(
        request,
        "characters/history.html",
        {"character": character, "versions": versions, "form": form, "comparison": comparison},
    )
