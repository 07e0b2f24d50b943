"""Every write of the campaigns app, one function each (Zulip "actions" style), one module per area.

Each function checks permissions (``Http404`` for what the actor may not see,
``PermissionDenied`` for a visible but forbidden write, ``ValidationError``
with a dict of field errors for bad input), writes inside
``transaction.atomic()`` and publishes live events inside that transaction
(they go out on commit). Views and API views stay thin and call these.

The package re-exports every name so callers keep writing ``campaigns.services.create_post``:

==================  ===========================================================
``campaign``        creating a campaign, its settings
``members``         roles, handing over, leaving, removing
``invitations``     invitations, the invitation link, join requests
``threads``         boards, threads, reading marks
``posts``           writing, editing, hiding posts; who hears of them
``rolls``           the rolls of a post (tests built from the sheet)
``rereads``         stored rolls read again (difficulty, GM's inputs; lowering a die with
                    experience writes the ledger: :mod:`characters.roll_spending`)
``sessions``        play sessions and the dice seed
``notifications``   a member's notifications and digest choice
==================  ===========================================================
"""

from campaigns.models import Roll
from campaigns.reads import can_add_gm_inputs, can_lower_die, can_set_difficulty, post_audience
from campaigns.services.campaign import (
    DEFAULT_BOARDS,
    RESERVED_SLUGS,
    _clean_campaign_fields,
    _unique_slug,
    create_campaign,
    update_campaign,
    validate_system_settings,
)
from campaigns.services.common import (
    User,
    _clean_name,
    _lang,
    _require_gm,
    _require_main_gm,
    _require_member_writer,
    _rules_errors,
)
from campaigns.services.invitations import (
    answer_invitation,
    cancel_invitation,
    decide_join_request,
    invite_member,
    join_by_link,
    request_to_join,
    reset_invite_link,
)
from campaigns.services.members import _add_member, hand_over, leave_campaign, remove_member, set_member_role
from campaigns.services.notifications import _notify, mark_notifications_read, set_email_digest
from campaigns.services.posts import (
    MAX_RECIPIENTS,
    _audience,
    _check_recipients,
    _clean_body,
    _mentionable,
    _notify_post,
    _render,
    _update_search,
    check_post_rate,
    create_post,
    edit_post,
    hide_post,
    publish_post_edited,
)
from campaigns.services.rereads import add_gm_inputs, set_roll_difficulty
from campaigns.services.rolls import (
    MAX_ROLLS_PER_POST,
    _check_character,
    _prepare_rolls,
    _with_character_sheet,
    build_sheet_test,
)
from campaigns.services.sessions import close_session, open_session, rotate_roll_seed
from campaigns.services.threads import add_board, create_thread, mark_read, move_board, rename_board, update_thread

__all__ = [
    "DEFAULT_BOARDS",
    "MAX_RECIPIENTS",
    "MAX_ROLLS_PER_POST",
    "RESERVED_SLUGS",
    "Roll",
    "User",
    "_add_member",
    "_audience",
    "_check_character",
    "_check_recipients",
    "_clean_body",
    "_clean_campaign_fields",
    "_clean_name",
    "_lang",
    "_mentionable",
    "_notify",
    "_notify_post",
    "_prepare_rolls",
    "_render",
    "_require_gm",
    "_require_main_gm",
    "_require_member_writer",
    "_rules_errors",
    "_unique_slug",
    "_update_search",
    "_with_character_sheet",
    "add_board",
    "add_gm_inputs",
    "answer_invitation",
    "build_sheet_test",
    "can_add_gm_inputs",
    "can_lower_die",
    "can_set_difficulty",
    "cancel_invitation",
    "check_post_rate",
    "close_session",
    "create_campaign",
    "create_post",
    "create_thread",
    "decide_join_request",
    "edit_post",
    "hand_over",
    "hide_post",
    "invite_member",
    "join_by_link",
    "leave_campaign",
    "mark_notifications_read",
    "mark_read",
    "move_board",
    "open_session",
    "post_audience",
    "publish_post_edited",
    "remove_member",
    "rename_board",
    "request_to_join",
    "reset_invite_link",
    "rotate_roll_seed",
    "set_email_digest",
    "set_member_role",
    "set_roll_difficulty",
    "update_campaign",
    "update_thread",
    "validate_system_settings",
]
