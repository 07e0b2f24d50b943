from django.contrib import admin

from live.models import LiveEvent


@admin.register(LiveEvent)
class LiveEventAdmin(admin.ModelAdmin):
    list_display = ["id", "channel", "kind", "created"]
    search_fields = ["channel", "kind"]
    readonly_fields = ["channel", "kind", "data", "audience", "created"]

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False
