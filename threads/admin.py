from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from agents.admin_base import OwnerColumnMixin, ReadOnlyTenantAdmin, ScopedAgentFilter, text_preview
from threads.models import Thread


@admin.register(Thread)
class ThreadAdmin(OwnerColumnMixin, ReadOnlyTenantAdmin):
    list_display = ("title", "agent", "owner_display", "status", "updated_at", "summary_preview", "summary_upto_at",
                    "id")
    list_filter = ("status", ScopedAgentFilter)
    list_select_related = ("agent", "owner")
    search_fields = ("id", "title")
    date_hierarchy = "updated_at"
    ordering = ("-updated_at",)

    @admin.display(description=_("滚动摘要"))
    def summary_preview(self, obj):
        return text_preview(obj.rolling_summary)
