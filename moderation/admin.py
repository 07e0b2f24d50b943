"""The Django admin for staff: search and filters everywhere, read-only
views of immutable records (rolls, ledger, combat log, live events,
moderation log) that no admin action can edit or delete.

Other apps may register their own admins: the mutable models are registered
here only when nobody did; the immutable ones are always replaced by the
read-only version below (``admin.site.unregister`` first).
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db import transaction
from django.db.models import Model
from django.http import HttpRequest

from moderation.models import AuditLog, Report, Suspension, TableBan
from moderation.services import _erase_user


class ReadOnlyAdmin(admin.ModelAdmin):
    """Browse only: no add, no change, no delete, no bulk action."""

    actions = None

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        return {}

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [field.name for field in self.model._meta.fields]


def _replace(model: type[Model], admin_class: type[admin.ModelAdmin]) -> None:
    """Register ``admin_class`` for ``model``, replacing any previous registration."""
    if admin.site.is_registered(model):
        admin.site.unregister(model)
    admin.site.register(model, admin_class)


def _register_if_free(model: type[Model], admin_class: type[admin.ModelAdmin]) -> None:
    if not admin.site.is_registered(model):
        admin.site.register(model, admin_class)


def _model(label: str) -> type[Model] | None:
    try:
        return apps.get_model(label)
    except LookupError:
        return None


# ---------------------------------------------------------------------------
# Moderation's own records
# ---------------------------------------------------------------------------
@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = ["created", "kind", "target_label", "campaign", "reason", "reporter", "status"]
    list_filter = ["status", "kind", "reason", "created"]
    search_fields = ["target_label", "details", "reporter__username", "campaign__title"]
    raw_id_fields = ["post", "character", "campaign", "reporter", "handled_by"]
    date_hierarchy = "created"


@admin.register(AuditLog)
class AuditLogAdmin(ReadOnlyAdmin):
    list_display = ["created", "actor_name", "action", "target_label", "campaign", "reason"]
    list_filter = ["action", "created"]
    search_fields = ["actor_name", "target_label", "reason", "campaign__title"]
    date_hierarchy = "created"


@admin.register(Suspension)
class SuspensionAdmin(admin.ModelAdmin):
    list_display = ["user", "until", "created", "created_by", "lifted_at"]
    list_filter = ["created", "lifted_at"]
    search_fields = ["user__username", "user__email", "reason"]
    raw_id_fields = ["user", "created_by", "lifted_by"]


@admin.register(TableBan)
class TableBanAdmin(admin.ModelAdmin):
    list_display = ["user", "campaign", "banned_by", "created"]
    search_fields = ["user__username", "campaign__title", "reason"]
    raw_id_fields = ["user", "campaign", "banned_by"]


# ---------------------------------------------------------------------------
# Immutable records of other apps: read-only
# ---------------------------------------------------------------------------
class RollAdmin(ReadOnlyAdmin):
    list_display = ["campaign", "sequence", "label", "kind", "system", "roller", "secret", "created"]
    list_filter = ["kind", "system", "secret", "created"]
    search_fields = ["label", "campaign__title", "roller__username", "hash"]
    list_select_related = ["campaign", "roller"]


class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = ["character", "currency", "amount", "kind", "approval", "created_by", "created"]
    list_filter = ["currency", "kind", "approval", "created"]
    search_fields = ["character__name", "note", "created_by__username", "key"]
    list_select_related = ["character", "created_by"]


class CombatLogEntryAdmin(ReadOnlyAdmin):
    list_display = ["encounter", "sequence", "round_number", "kind", "actor", "gm_only", "created"]
    list_filter = ["kind", "gm_only", "created"]
    search_fields = ["encounter__title", "actor__username"]


class LiveEventAdmin(ReadOnlyAdmin):
    list_display = ["id", "channel", "kind", "created"]
    list_filter = ["kind", "created"]
    search_fields = ["channel", "kind"]


class PostVersionAdmin(ReadOnlyAdmin):
    list_display = ["post", "edited_by", "created"]
    search_fields = ["body", "edited_by__username"]


class SheetVersionAdmin(ReadOnlyAdmin):
    list_display = ["character", "version", "status", "author", "created"]
    search_fields = ["character__name", "reason"]
    list_filter = ["status"]


IMMUTABLE: dict[str, type[admin.ModelAdmin]] = {
    "campaigns.Roll": RollAdmin,
    "campaigns.PostVersion": PostVersionAdmin,
    "characters.LedgerEntry": LedgerEntryAdmin,
    "characters.SheetVersion": SheetVersionAdmin,
    "combat.LogEntry": CombatLogEntryAdmin,
    "live.LiveEvent": LiveEventAdmin,
}


def _fix_search(admin_class: type[admin.ModelAdmin], model: type[Model]) -> type[admin.ModelAdmin]:
    """Drop search fields that the model does not have (other apps' models evolve)."""
    fields = {f.name for f in model._meta.get_fields()}
    search = [s for s in admin_class.search_fields if s.split("__")[0] in fields]
    display = [d for d in admin_class.list_display if d in fields or d == "__str__"] or ["__str__"]
    filters = [f for f in admin_class.list_filter if isinstance(f, str) and f in fields]
    return type(
        admin_class.__name__, (admin_class,), {"search_fields": search, "list_display": display, "list_filter": filters}
    )


for _label, _admin_class in IMMUTABLE.items():
    _m = _model(_label)
    if _m is not None:
        _replace(_m, _fix_search(_admin_class, _m))


# ---------------------------------------------------------------------------
# Mutable models (registered only if their app did not)
# ---------------------------------------------------------------------------
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["title", "system", "is_public", "recruiting", "locked", "created_by", "created"]
    list_filter = ["system", "is_public", "recruiting", "locked", "language"]
    search_fields = ["title", "slug", "pitch", "created_by__username"]
    raw_id_fields = ["created_by"]


class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "campaign", "role", "joined"]
    list_filter = ["role"]
    search_fields = ["user__username", "campaign__title"]
    raw_id_fields = ["user", "campaign"]


class ThreadAdmin(admin.ModelAdmin):
    list_display = ["title", "campaign", "board", "sticky", "locked", "post_count", "last_post_at"]
    list_filter = ["sticky", "locked"]
    search_fields = ["title", "campaign__title"]
    raw_id_fields = ["board", "campaign", "created_by"]


class PostAdmin(admin.ModelAdmin):
    list_display = ["__str__", "campaign", "author", "visibility", "hidden", "created"]
    list_filter = ["visibility", "hidden", "is_system", "created"]
    search_fields = ["body", "author__username", "thread__title", "campaign__title"]
    raw_id_fields = ["thread", "campaign", "author", "character", "reply_to", "session", "hidden_by", "recipients"]
    readonly_fields = ["body_html", "search_vector"]
    date_hierarchy = "created"


class CharacterAdmin(admin.ModelAdmin):
    list_display = ["name", "campaign", "owner", "is_npc", "system", "status", "updated"]
    list_filter = ["system", "status", "is_npc"]
    search_fields = ["name", "owner__username", "campaign__title"]
    raw_id_fields = ["campaign", "owner"]


class PlaySessionAdmin(admin.ModelAdmin):
    list_display = ["campaign", "number", "title", "status", "opened_at", "closed_at"]
    list_filter = ["status"]
    search_fields = ["campaign__title", "title"]


MUTABLE: dict[str, type[admin.ModelAdmin]] = {
    "campaigns.Campaign": CampaignAdmin,
    "campaigns.Membership": MembershipAdmin,
    "campaigns.Thread": ThreadAdmin,
    "campaigns.Post": PostAdmin,
    "campaigns.PlaySession": PlaySessionAdmin,
    "characters.Character": CharacterAdmin,
}

for _label, _admin_class in MUTABLE.items():
    _m = _model(_label)
    if _m is not None:
        _register_if_free(_m, _fix_search(_admin_class, _m))


class SuspensionInline(admin.TabularInline):
    model = Suspension
    fk_name = "user"
    extra = 0
    fields = ["until", "reason", "created", "created_by", "lifted_at"]
    readonly_fields = ["created", "created_by", "lifted_at"]


class _SafeUserDeletion:
    """Deleting an account from the admin never breaks a campaign's roll chain:
    an account that rolled dice is emptied into a tombstone instead
    (:func:`moderation.services._erase_user`)."""

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        _erase_user(obj)

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        with transaction.atomic():
            for user in queryset:
                _erase_user(user)


_User = get_user_model()
_user_admin = admin.site._registry.get(_User)
if isinstance(_user_admin, UserAdmin) and SuspensionInline not in (_user_admin.inlines or []):
    _base = type(_user_admin)
    _replace(
        _User,
        type("TableeUserAdmin", (_SafeUserDeletion, _base), {"inlines": [*(_base.inlines or []), SuspensionInline]}),
    )
