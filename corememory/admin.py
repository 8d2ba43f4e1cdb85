"""School admins confirm or delete proposed facts and edit confirmed ones.

Every action calls the same services as the API; every list and every filter's
choices are scoped to the admin's school (superusers see all schools).
"""

from datetime import timedelta

from django import forms
from django.contrib import admin, messages
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from agents.admin_base import (OwnerColumnMixin, ScopedAgentFilter, TenantScopedAdmin, confirm_action, owner_label,
                               percent, run_link, text_preview)
from core import redline
from core.errors import AppError
from agents.models import User
from corememory import services
from corememory.models import CoreCandidate, CoreFact


def acting_tenant(request, obj):
    """The school an admin acts for: their own, or the row's for a superuser."""
    return obj.tenant if request.user.is_superuser else request.user.tenant


# --- filters whose choices never show another school's agents or teachers --------------

class OwnerFilter(admin.SimpleListFilter):
    title = _("教师 / 终端用户")
    parameter_name = "owner"

    def lookups(self, request, model_admin):
        rows = model_admin.get_queryset(request).values_list("owner_id", "end_user").distinct()
        users = User.objects.in_bulk({o for o, _ in rows if o})
        choices = []
        for owner_id, end_user in sorted(set(rows), key=lambda r: (r[0] is None, str(r[0]), r[1])):
            label = owner_label(owner=users.get(owner_id), end_user=end_user)
            if owner_id:
                choices.append((f"u:{owner_id}", label))
            elif end_user:
                choices.append((f"e:{end_user}", label))
            else:
                choices.append(("school", label))
        return choices

    def queryset(self, request, queryset):
        value = self.value()
        if not value:
            return queryset
        if value.startswith("u:"):
            return queryset.filter(owner_id=value[2:]) if value[2:].isdigit() else queryset.none()
        if value.startswith("e:"):
            return queryset.filter(owner__isnull=True, end_user=value[2:])
        return queryset.filter(owner__isnull=True, end_user="")


class ConfidenceFilter(admin.SimpleListFilter):
    title = _("置信度")
    parameter_name = "confidence"
    RANGES = {"high": (0.8, None), "medium": (0.5, 0.8), "low": (None, 0.5)}

    def lookups(self, request, model_admin):
        return [("high", _("高（≥ 80%）")), ("medium", _("中（50%–80%）")), ("low", _("低（< 50%）"))]

    def queryset(self, request, queryset):
        low, high = self.RANGES.get(self.value(), (None, None))
        if low is not None:
            queryset = queryset.filter(confidence__gte=low)
        if high is not None:
            queryset = queryset.filter(confidence__lt=high)
        return queryset


class AgeFilter(admin.SimpleListFilter):
    title = _("提出时间")
    parameter_name = "age"
    DAYS = {"1d": (None, 1), "7d": (None, 7), "older7": (7, None), "older30": (30, None)}

    def lookups(self, request, model_admin):
        return [("1d", _("24 小时内")), ("7d", _("7 天内")), ("older7", _("超过 7 天")), ("older30", _("超过 30 天"))]

    def queryset(self, request, queryset):
        older_than, newer_than = self.DAYS.get(self.value(), (None, None))
        now = timezone.now()
        if newer_than is not None:
            queryset = queryset.filter(created_at__gte=now - timedelta(days=newer_than))
        if older_than is not None:
            queryset = queryset.filter(created_at__lt=now - timedelta(days=older_than))
        return queryset


class RunLinkMixin(OwnerColumnMixin):
    @admin.display(description=_("来源运行"))
    def source_run_link(self, obj):
        return run_link(obj.source_run_id)

    @admin.display(description=_("内容"), ordering="text")
    def text_preview(self, obj):
        return text_preview(obj.text)


@admin.register(CoreCandidate)
class CoreCandidateAdmin(RunLinkMixin, TenantScopedAdmin):
    list_display = ("text_preview", "confidence_percent", "seen_count", "agent", "owner_display", "created_at",
                    "source_run_link")
    list_filter = (ScopedAgentFilter, OwnerFilter, ConfidenceFilter, AgeFilter)
    search_fields = ("text",)
    ordering = ("-created_at",)
    actions = ("confirm_candidates", "delete_candidates")
    list_select_related = ("agent", "owner")
    # The machine wrote every field: an admin confirms or deletes, and edits the fact after.
    fields = readonly_fields = ("id", "text", "confidence_percent", "seen_count", "agent", "owner_display",
                                "source_run_link", "created_at")

    @admin.display(description=_("置信度"), ordering="confidence")
    def confidence_percent(self, obj):
        return percent(obj.confidence)

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # ours goes through the service and says how many
        return actions

    @admin.action(description=_("确认所选候选事实（加入核心记忆）"), permissions=["change"])
    def confirm_candidates(self, request, queryset):
        page = confirm_action(self, request, queryset, action="confirm_candidates", title=_("确认候选事实"),
                              question=_("确认以下候选事实？确认后它们会进入核心记忆，在今后的回复中使用。"),
                              button=_("是的，确认"))
        if page is not None:
            return page
        result = services.candidates_confirm(
            tenant_of=lambda c: acting_tenant(request, c),
            candidates=list(queryset.select_related("tenant")),
            confirmed_by=request.user,
            via=CoreFact.Via.ADMIN,
        )
        self.message_user(request, ngettext("已确认 %(n)d 条候选事实。", "已确认 %(n)d 条候选事实。",
                                            result.confirmed) % {"n": result.confirmed}, messages.SUCCESS)
        if result.already_confirmed:
            self.message_user(request, gettext("%(n)d 条已在核心记忆中，已移出待确认区。")
                              % {"n": result.already_confirmed}, messages.INFO)
        if result.refused:
            self.message_user(request, gettext("%(n)d 条含敏感个人信息，未确认（%(kinds)s）。") % {
                "n": sum(result.refused.values()),
                "kinds": "、".join(str(services.redline.KIND_LABELS.get(k, k)) for k in result.refused),
            }, messages.WARNING)
        if result.evicted:
            self.message_user(request, gettext("核心记忆已满（每个智能体每人 %(limit)d 条），淘汰了最久未用的 %(n)d 条：%(texts)s")
                              % {"limit": services.MAX_CONFIRMED, "n": len(result.evicted),
                                 "texts": "；".join(f"「{f.text}」" for f in result.evicted)}, messages.WARNING)

    @admin.action(description=_("删除所选候选事实"), permissions=["delete"])
    def delete_candidates(self, request, queryset):
        page = confirm_action(self, request, queryset, action="delete_candidates", title=_("删除候选事实"),
                              question=_("删除以下候选事实？此操作不能撤销。"), button=_("是的，删除"),
                              deleting=True)
        if page is not None:
            return page
        deleted = services.candidates_delete(tenant_of=lambda c: acting_tenant(request, c),
                                             candidates=list(queryset.select_related("tenant")))
        self.message_user(request, ngettext("已删除 %(n)d 条候选事实。", "已删除 %(n)d 条候选事实。", deleted)
                          % {"n": deleted}, messages.SUCCESS)

    def has_add_permission(self, request):
        return False


class CoreFactForm(forms.ModelForm):
    """Edits pass red line 2 exactly like the API (the service checks again on save)."""

    class Meta:
        model = CoreFact
        fields = ("text",)

    def clean_text(self):
        try:
            return services.fact_edit_clean(fact=self.instance, text=self.cleaned_data.get("text"))
        except AppError as exc:
            raise forms.ValidationError(exc.message, code=exc.code) from None


@admin.register(CoreFact)
class CoreFactAdmin(RunLinkMixin, TenantScopedAdmin):
    form = CoreFactForm
    list_display = ("text_preview", "injection_status", "agent", "owner_display", "last_used", "confirmed_at",
                    "confirmed_by", "confirmed_via", "source_run_link")
    list_filter = (ScopedAgentFilter, OwnerFilter, "origin")
    search_fields = ("text",)
    ordering = ("-confirmed_at",)
    list_select_related = ("agent", "owner", "confirmed_by")
    fields = ("id", "text", "injection_status", "agent", "owner_display", "origin", "last_used", "created_at",
              "confirmed_at", "confirmed_by", "confirmed_via", "source_run_link", "updated_at")
    readonly_fields = tuple(f for f in fields if f != "text")
    actions = ("delete_facts",)

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    @admin.display(description=_("注入状态"))
    def injection_status(self, obj):
        # The layer checks again before every run (fail closed); this says why a fact
        # stored before today's red line is no longer in any prompt.
        verdict = redline.recheck(obj.text)
        if verdict:
            return gettext("不注入：含敏感个人信息（%(kinds)s）") % {"kinds": verdict.labels()}
        return gettext("注入")

    def has_add_permission(self, request):
        # Facts are typed by their owner (API or pages); the admin confirms and edits.
        return False

    def save_model(self, request, obj, form, change):
        services.fact_update(tenant=acting_tenant(request, obj), fact=obj, text=form.cleaned_data["text"])

    def delete_model(self, request, obj):
        services.fact_delete(tenant=acting_tenant(request, obj), fact=obj)

    def delete_queryset(self, request, queryset):
        for fact in queryset.select_related("tenant"):
            services.fact_delete(tenant=acting_tenant(request, fact), fact=fact)

    @admin.action(description=_("删除所选事实"), permissions=["delete"])
    def delete_facts(self, request, queryset):
        page = confirm_action(self, request, queryset, action="delete_facts", title=_("删除事实"),
                              question=_("从核心记忆中删除以下事实？此操作不能撤销。"), button=_("是的，删除"),
                              deleting=True)
        if page is not None:
            return page
        facts = list(queryset.select_related("tenant"))
        self.delete_queryset(request, queryset)
        self.message_user(request, ngettext("已删除 %(n)d 条事实。", "已删除 %(n)d 条事实。", len(facts))
                          % {"n": len(facts)}, messages.SUCCESS)

