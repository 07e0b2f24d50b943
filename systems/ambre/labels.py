"""The auction's words in the reader's language (rank labels, lot statuses).

Kept here until the rules package gives them as ``Msg`` tables.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy, pgettext_lazy

RANK_LABELS = {
    "dominant": gettext_lazy("dominant"),
    "ranked": gettext_lazy("ranked"),
    "amberite": gettext_lazy("Amberite"),
    "chaosian": gettext_lazy("chaosian"),
    "human": gettext_lazy("human"),
}
LOT_STATUS = {
    "open": pgettext_lazy("auction lot", "open"),
    "pending": pgettext_lazy("auction lot", "to come"),
    "closed": pgettext_lazy("auction lot", "closed"),
}
