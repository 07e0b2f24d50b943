"""HTML views of characters: thin wrappers around :mod:`characters.services`.

Split by area (roster, sheet page, editing, review, portraits, change requests,
history); the view names the URLconf uses are re-exported here.
"""

from __future__ import annotations

from characters.views.changes import (
    change_action,
    change_detail,
)
from characters.views.editing import (
    profile_edit,
    sheet_edit,
    validate,
    wizard,
)
from characters.views.history import history
from characters.views.portraits import (
    portrait,
    portrait_file,
)
from characters.views.review import (
    approve,
    return_to_player,
    set_status,
    submit,
)
from characters.views.roster import (
    campaign_characters,
    character_import,
    character_new,
    my_characters,
)
from characters.views.sheet import (
    character_detail,
    character_export,
    character_print,
    sheet_notice,
)

__all__ = [
    "approve",
    "campaign_characters",
    "change_action",
    "change_detail",
    "character_detail",
    "character_export",
    "character_import",
    "character_new",
    "character_print",
    "history",
    "my_characters",
    "portrait",
    "portrait_file",
    "profile_edit",
    "return_to_player",
    "set_status",
    "sheet_edit",
    "sheet_notice",
    "submit",
    "validate",
    "wizard",
]
