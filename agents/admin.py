from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.db.models import Sum
from django.utils.translation import gettext_lazy as _

from agents.admin_base import ReadOnlyTenantAdmin, ScopedAgentFilter, TenantScopedAdmin
from agents.admin_provider import AgentProviderAdminMixin
from agents.models import Agent, ApiKey, MemoryOp, Run, Tenant, User
from agents.services import school_secret_prefix


@admin.register(Tenant)
class TenantAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "created_at")
    search_fields = ("slug", "name")


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = ("username", "first_name", "tenant", "role", "is_staff")
    list_filter = ("tenant", "role", "is_staff")
    fieldsets = BaseUserAdmin.fieldsets + ((_("学校"), {"fields": ("tenant", "role")}),)
    add_fieldsets = BaseUserAdmin.add_fieldsets + ((_("学校"), {"fields": ("tenant", "role")}),)


@admin.register(Agent)
class AgentAdmin(AgentProviderAdminMixin, TenantScopedAdmin):
    list_display = ("name", "id", "tenant", "provider_kind", "model", "language", "local_first")
    list_filter = ("provider_kind", "language", "local_first")
    search_fields = ("name", "id")
    readonly_fields = ("id", "created_at")

    def save_model(self, request, obj, form, change):
        if (not request.user.is_superuser and change and {"base_url", "provider_kind"} & set(form.changed_data)
                and not obj.api_key_env.startswith(school_secret_prefix(obj.tenant))):
            # A secret the operator chose for one endpoint never follows the agent to another.
            obj.api_key_env = ""
        super().save_model(request, obj, form, change)


@admin.register(ApiKey)
class ApiKeyAdmin(TenantScopedAdmin):
    list_display = ("prefix", "name", "tenant", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("prefix", "key_hash", "created_at", "last_used_at")


@admin.register(Run)
class RunAdmin(ReadOnlyTenantAdmin):
    list_display = ("id", "agent", "owner", "end_user", "status", "error_code", "created_at", "prompt_tokens",
                    "completion_tokens", "cost")
    list_filter = ("status", ScopedAgentFilter)
    search_fields = ("id", "input")
    date_hierarchy = "created_at"


@admin.register(MemoryOp)
class MemoryOpAdmin(ReadOnlyTenantAdmin):
    list_display = ("at", "kind", "status", "agent", "thread", "run", "input_tokens", "output_tokens", "cost",
                    "rejected_count")
    list_filter = ("kind", "status", ScopedAgentFilter)
    date_hierarchy = "at"

    def changelist_view(self, request, extra_context=None):
        response = super().changelist_view(request, extra_context=extra_context)
        try:
            qs = response.context_data["cl"].queryset
        except (AttributeError, KeyError):
            return response
        response.context_data["memory_op_totals"] = qs.aggregate(
            input_tokens=Sum("input_tokens"), output_tokens=Sum("output_tokens"), cost=Sum("cost")
        )
        return response
