from django.contrib import admin

from agents.admin_base import ScopedAgentFilter, ReadOnlyTenantAdmin
from recall.models import RecallEntry


@admin.register(RecallEntry)
class RecallEntryAdmin(ReadOnlyTenantAdmin):
    list_display = ("run_ref", "agent", "owner", "end_user", "summary_kind", "happened_at")
    list_filter = ("summary_kind", ScopedAgentFilter)
    search_fields = ("run_ref", "input")
    date_hierarchy = "happened_at"
    readonly_fields = [f.name for f in RecallEntry._meta.fields]

    def has_delete_permission(self, request, obj=None):
        # Deleting here would leave index entries behind; retention and the services remove both.
        return False
