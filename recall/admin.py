from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from agents.admin_base import OwnerColumnMixin, ReadOnlyTenantAdmin, ScopedAgentFilter, text_preview
from recall.models import RecallEntry


@admin.register(RecallEntry)
class RecallEntryAdmin(OwnerColumnMixin, ReadOnlyTenantAdmin):
    list_display = ("happened_at", "agent", "owner_display", "input_preview", "summary_preview", "summary_kind",
                    "run_ref")
    list_filter = ("summary_kind", ScopedAgentFilter)
    list_select_related = ("agent", "owner")
    search_fields = ("run_ref", "input")
    date_hierarchy = "happened_at"
    ordering = ("-happened_at",)
    readonly_fields = [f.name for f in RecallEntry._meta.fields]

    @admin.display(description=_("输入"))
    def input_preview(self, obj):
        return text_preview(obj.input)

    @admin.display(description=_("摘要"))
    def summary_preview(self, obj):
        return text_preview(obj.summary)

    def has_delete_permission(self, request, obj=None):
        # Deleting here would leave index entries behind; retention and the services remove both.
        return False
