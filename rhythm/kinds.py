"""The notification kinds of the play loop, with their sentence and settings label.

Each kind says who it is for in its docstring-like comment; the services
choose the recipients. Sentences take ``where`` (a thread, a character or a
campaign title) and ``who`` (the actor's name).
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

#: kind → sentence shown in the notification list and e-mails.
SENTENCES = {
    "mention": _("%(who)s mentioned you in “%(where)s”"),
    "reply": _("%(who)s replied to you in “%(where)s”"),
    "whisper": _("%(who)s whispered to you in “%(where)s”"),
    "turn": _("Your turn in “%(where)s”"),
    "invitation": _("You are invited to “%(where)s”"),
    "join": _("%(who)s asks to join “%(where)s”"),
    "sheet_submitted": _("%(who)s submitted the sheet of %(where)s"),
    "sheet_returned": _("Your GM returned the sheet of %(where)s"),
    "sheet_approved": _("Your GM approved the sheet of %(where)s"),
    "change_opened": _("%(who)s asks for a change to %(where)s"),
    "change_decided": _("Your GM decided your change request for %(where)s"),
    "purchase_requested": _("%(who)s wants to buy something for %(where)s"),
    "purchase_decided": _("Your GM decided your purchase for %(where)s"),
    "award_confirmed": _("Awards confirmed for %(where)s"),
    "session_opened": _("A play session opened in “%(where)s”"),
    "session_closed": _("The play session closed in “%(where)s”"),
    "gm_only_post": _("%(who)s wrote to the GMs in “%(where)s”"),
    "reaction": _("Your reaction is needed in “%(where)s”"),
    "nudge": _("Reminder: the scene “%(where)s” is waiting for you"),
}

#: kind → label on the notification settings page.
LABELS = {
    "mention": pgettext_lazy("notification kind", "Mentions"),
    "reply": pgettext_lazy("notification kind", "Replies"),
    "whisper": pgettext_lazy("notification kind", "Whispers"),
    "turn": pgettext_lazy("notification kind", "Your turn"),
    "invitation": pgettext_lazy("notification kind", "Invitations"),
    "join": pgettext_lazy("notification kind", "Join requests (GMs)"),
    "sheet_submitted": pgettext_lazy("notification kind", "Sheets submitted (GMs)"),
    "sheet_returned": pgettext_lazy("notification kind", "Sheets returned to you"),
    "sheet_approved": pgettext_lazy("notification kind", "Sheets approved"),
    "change_opened": pgettext_lazy("notification kind", "Change requests (GMs)"),
    "change_decided": pgettext_lazy("notification kind", "Change requests decided"),
    "purchase_requested": pgettext_lazy("notification kind", "Purchases to decide (GMs)"),
    "purchase_decided": pgettext_lazy("notification kind", "Purchases decided"),
    "award_confirmed": pgettext_lazy("notification kind", "Awards confirmed"),
    "session_opened": pgettext_lazy("notification kind", "Play session opened"),
    "session_closed": pgettext_lazy("notification kind", "Play session closed"),
    "gm_only_post": pgettext_lazy("notification kind", "Posts for the GMs (GMs)"),
    "reaction": pgettext_lazy("notification kind", "Reaction needed in combat"),
    "nudge": pgettext_lazy("notification kind", "Reminders"),
}

#: Delivery when a member has not chosen: in the site, and in the e-mail digest
#: if the member turned the digest on (the notifications page's switch).
DEFAULT_DELIVERY = "app"
