from django.contrib import admin

from agents.admin_base import ReadOnlyTenantAdmin
from threads.models import Thread


@admin.register(Thread)
class ThreadAdmin(ReadOnlyTenantAdmin):
    list_display = ("id", "title", "agent", "owner", "end_user", "status", "updated_at", "summary_upto_at")
    list_filter = ("status", "agent")
    search_fields = ("id", "title")
    date_hierarchy = "updated_at"
