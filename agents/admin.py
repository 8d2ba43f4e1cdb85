from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.db.models import Sum
from django.utils.translation import gettext_lazy as _

from agents.admin_base import (OwnerColumnMixin, ReadOnlyTenantAdmin, ScopedAgentFilter, TenantScopedAdmin, run_link,
                               text_preview, token_pair)
from agents.admin_provider import AgentProviderAdminMixin
from agents.models import Agent, ApiKey, MemoryOp, Run, Tenant, User
from agents.services import school_secret_prefix


@admin.register(Tenant)
class TenantAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "created_at")
    search_fields = ("slug", "name")
    ordering = ("-created_at",)


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = ("username", "first_name", "tenant", "role", "is_staff")
    list_filter = ("tenant", "role", "is_staff")
    ordering = ("-date_joined",)
    fieldsets = BaseUserAdmin.fieldsets + ((_("学校"), {"fields": ("tenant", "role")}),)
    add_fieldsets = BaseUserAdmin.add_fieldsets + ((_("学校"), {"fields": ("tenant", "role")}),)


@admin.register(Agent)
class AgentAdmin(AgentProviderAdminMixin, TenantScopedAdmin):
    list_display = ("name", "id", "tenant", "provider_kind", "model", "language", "local_first")
    list_filter = ("provider_kind", "language", "local_first")
    search_fields = ("name", "id")
    readonly_fields = ("id", "created_at")
    ordering = ("-created_at",)

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
    ordering = ("-created_at",)


@admin.register(Run)
class RunAdmin(OwnerColumnMixin, ReadOnlyTenantAdmin):
    # The columns a school admin reads first come first: the table scrolls sideways on a laptop.
    list_display = ("created_at", "agent", "owner_display", "input_preview", "status_display", "tokens", "cost")
    list_display_links = ("created_at", "input_preview")
    list_filter = ("status", ScopedAgentFilter)
    list_select_related = ("agent", "owner")
    search_fields = ("id", "input")
    date_hierarchy = "created_at"
    ordering = ("-created_at",)

    @admin.display(description=_("输入"))
    def input_preview(self, obj):
        return text_preview(obj.input)

    @admin.display(description=_("状态"), ordering="status")
    def status_display(self, obj):
        status = obj.get_status_display()
        return f"{status}（{obj.error_code}）" if obj.error_code else status

    @admin.display(description=_("输入 / 输出 token"))
    def tokens(self, obj):
        return token_pair(obj.prompt_tokens, obj.completion_tokens)


@admin.register(MemoryOp)
class MemoryOpAdmin(OwnerColumnMixin, ReadOnlyTenantAdmin):
    list_display = ("at", "kind", "status", "agent", "owner_display", "tokens", "cost", "rejected_count", "run_column")
    list_filter = ("kind", "status", ScopedAgentFilter)
    list_select_related = ("agent", "owner")
    date_hierarchy = "at"
    ordering = ("-at",)

    @admin.display(description=_("输入 / 输出 token"))
    def tokens(self, obj):
        return token_pair(obj.input_tokens, obj.output_tokens)

    @admin.display(description=_("运行"))
    def run_column(self, obj):
        return run_link(obj.run_id)

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
