from django.contrib import admin

from combat.models import Encounter, LogEntry, Participant


@admin.register(Encounter)
class EncounterAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "campaign", "status", "round_number", "created"]
    list_filter = ["status"]
    search_fields = ["title"]
    readonly_fields = ["last_sequence"]


@admin.register(Participant)
class ParticipantAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "encounter", "side", "is_npc", "stats_visible"]


@admin.register(LogEntry)
class LogEntryAdmin(admin.ModelAdmin):
    """The combat log is append-only: read it here, never change it."""

    list_display = ["id", "encounter", "sequence", "round_number", "kind", "gm_only", "created"]
    list_filter = ["kind", "gm_only"]
    readonly_fields = [f.name for f in LogEntry._meta.fields]

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False
