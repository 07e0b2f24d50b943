"""Forms of the moderation pages (validation of shape; permissions live in services)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from moderation.models import AuditLog, Report


class ReportForm(forms.Form):
    reason = forms.ChoiceField(
        label=_("Why are you reporting this?"), choices=Report.Reason.choices, widget=forms.RadioSelect
    )
    details = forms.CharField(
        label=_("Details"),
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_("What is wrong? The moderators and the campaign's GMs read this."),
    )


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"),
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Recorded in the moderation log."),
    )

    def __init__(self, *args: Any, required: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["reason"].required = required


class HandleReportForm(forms.Form):
    status = forms.ChoiceField(
        label=_("Decision"),
        choices=[
            (Report.Status.RESOLVED, Report.Status.RESOLVED.label),
            (Report.Status.DISMISSED, Report.Status.DISMISSED.label),
        ],
    )
    note = forms.CharField(label=_("Note"), required=False, max_length=500)


class SuspendForm(forms.Form):
    DURATIONS = [
        ("1", _("1 day")),
        ("3", _("3 days")),
        ("7", _("1 week")),
        ("30", _("30 days")),
        ("365", _("1 year")),
        ("permanent", _("permanently")),
    ]
    duration = forms.ChoiceField(label=_("Duration"), choices=DURATIONS, initial="7")
    reason = forms.CharField(
        label=_("Reason"),
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Shown to the member on the suspension notice."),
    )

    def days(self) -> int | None:
        value = self.cleaned_data["duration"]
        return None if value == "permanent" else int(value)


class DeleteAccountForm(forms.Form):
    password = forms.CharField(
        label=_("Your password"), widget=forms.PasswordInput(attrs={"autocomplete": "current-password"})
    )
    confirm = forms.BooleanField(
        label=_("I understand that my account is deleted for good; my posts stay, signed “deleted user”.")
    )


class AuditFilterForm(forms.Form):
    action = forms.ChoiceField(
        label=_("Action"), required=False, choices=[("", _("all")), *list(AuditLog.Action.choices)]
    )
    actor = forms.CharField(label=_("By (username)"), required=False, max_length=150)
    target = forms.CharField(label=_("Concerning (username or title)"), required=False, max_length=150)
    campaign = forms.CharField(label=_("Campaign (slug)"), required=False, max_length=140)
    since = forms.DateField(label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"}))


class QueueFilterForm(forms.Form):
    status = forms.ChoiceField(
        label=_("Status"), required=False, choices=[("", _("all")), *list(Report.Status.choices)]
    )
    kind = forms.ChoiceField(label=_("Kind"), required=False, choices=[("", _("all")), *list(Report.Kind.choices)])
