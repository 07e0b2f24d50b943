"""Writes and reads of the rhythm of play (*rythme de jeu*).

Every user-triggered write is one function here: it checks permission,
validates, writes in a transaction and publishes its live event on commit.
The periodic work (reminders, deadlines) is :func:`run_reminders`, run by
Celery beat (or ``manage.py rhythm_tick`` on embedded defaults); it is
idempotent: a nudge or a deadline action is recorded under a unique
constraint, so a second run in the same round does nothing.

One module per area, every name re-exported here (``rhythm.services.notify``...).
"""

from rhythm.services.absences import cancel_absence, current_absences, declare_absence
from rhythm.services.drafts import MAX_DRAFT_LENGTH, get_draft, save_draft
from rhythm.services.notifications import (
    DeliveryPreferences,
    chosen_delivery,
    delivery_for,
    detect_timezone,
    gm_ids,
    in_quiet_hours,
    member_ids,
    notify,
    sentence,
    set_member_rhythm,
    set_preferences,
)
from rhythm.services.nudges import REMINDER_AT, _deadline_post, _record_nudge, apply_deadline, nudge, run_reminders
from rhythm.services.scenes import (
    SceneView,
    _initiative_order,
    _notify_turn,
    _publish_scene,
    _require_gm,
    _round_authors,
    _start_round,
    absent_user_ids,
    close_round,
    deadline_at,
    on_post_created,
    participants,
    scene_for,
    scene_view,
    set_scene_rhythm,
    turn_state,
)
from rhythm.services.waiting import WaitingItem, _combat_items, _progression_items, waiting_in_campaign, waiting_on_you

__all__ = [
    "MAX_DRAFT_LENGTH",
    "REMINDER_AT",
    "DeliveryPreferences",
    "SceneView",
    "WaitingItem",
    "_combat_items",
    "_deadline_post",
    "_initiative_order",
    "_notify_turn",
    "_progression_items",
    "_publish_scene",
    "_record_nudge",
    "_require_gm",
    "_round_authors",
    "_start_round",
    "absent_user_ids",
    "apply_deadline",
    "cancel_absence",
    "chosen_delivery",
    "close_round",
    "current_absences",
    "deadline_at",
    "declare_absence",
    "delivery_for",
    "detect_timezone",
    "get_draft",
    "gm_ids",
    "in_quiet_hours",
    "member_ids",
    "notify",
    "nudge",
    "on_post_created",
    "participants",
    "run_reminders",
    "save_draft",
    "scene_for",
    "scene_view",
    "sentence",
    "set_member_rhythm",
    "set_preferences",
    "set_scene_rhythm",
    "turn_state",
    "waiting_in_campaign",
    "waiting_on_you",
]
