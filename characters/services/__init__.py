"""Every user-triggered write on characters: one function each.

Each function checks permission (``Http404`` for what the actor may not see,
``PermissionDenied`` for a visible but forbidden write), validates game data
through :mod:`rules` only, writes inside ``transaction.atomic()`` and
publishes live events inside that transaction.

Sheet errors are raised as :class:`SheetInvalid` (a ``ValidationError`` whose
dict is keyed by the rules engine's dotted paths) so forms can put each
message next to its input.

The package splits the writes by area (Zulip's ``zerver/actions/``):
:mod:`.sheets` (creation, wizard saves, review), :mod:`.changes` (change
requests), :mod:`.portraits`, :mod:`.transfer` (export/import), with the
shared :mod:`.errors`, :mod:`.evaluation` and :mod:`.base`. The names
callers use are re-exported here.
"""

from __future__ import annotations

from characters.services.base import (
    _keep_locked,
    check_version,
    lock_character,
    publish_sheet,
    record_version,
    require_full_sheet,
)
from characters.services.changes import (
    approve_change,
    change_ledger_drafts,
    comment_change,
    purchase_preview,
    reject_change,
    request_change,
    withdraw_change,
)
from characters.services.errors import (
    SheetInvalid,
    VersionConflict,
    _error,
)
from characters.services.evaluation import (
    Evaluation,
    approval_sheet,
    evaluate,
    evaluate_character,
    shown_budget,
    system_settings,
)
from characters.services.portraits import (
    set_portrait,
)
from characters.services.sheets import (
    _write_creation_ledger,
    approve_character,
    create_character,
    on_step_saved,
    return_character,
    save_sheet,
    set_status,
    submit_character,
    update_profile,
)
from characters.services.transfer import (
    EXPORT_FORMAT,
    EXPORT_VERSION,
    export_character,
    import_character,
)

__all__ = [
    "EXPORT_FORMAT",
    "EXPORT_VERSION",
    "Evaluation",
    "SheetInvalid",
    "VersionConflict",
    "_error",
    "_keep_locked",
    "_write_creation_ledger",
    "approval_sheet",
    "approve_change",
    "approve_character",
    "change_ledger_drafts",
    "check_version",
    "comment_change",
    "create_character",
    "evaluate",
    "evaluate_character",
    "export_character",
    "import_character",
    "lock_character",
    "on_step_saved",
    "publish_sheet",
    "purchase_preview",
    "record_version",
    "reject_change",
    "request_change",
    "require_full_sheet",
    "return_character",
    "save_sheet",
    "set_portrait",
    "set_status",
    "shown_budget",
    "submit_character",
    "system_settings",
    "update_profile",
    "withdraw_change",
]

#: The names these helpers had before the split (kept for code written against them).
_lock = lock_character
_record_version = record_version
_publish_sheet = publish_sheet
_require_visible = require_full_sheet
