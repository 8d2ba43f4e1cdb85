"""Admin scoped to a school: a school admin sees and edits only their school's rows;
superusers see every school. Lists are newest first; long texts show as a wrapped
preview with the whole text on hover and on the detail page; every bulk action asks
for confirmation first (like Django's own delete_selected)."""

from django.contrib import admin
from django.contrib.admin import helpers
from django.contrib.admin.utils import quote
from django.urls import reverse
from django.template.response import TemplateResponse
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

PREVIEW_CHARS = 120


def is_school_admin(user) -> bool:
    return bool(user.is_active and user.is_staff and getattr(user, "tenant_id", None)
                and getattr(user, "role", "") == "school_admin")


# Foreign keys whose choices must stay inside the admin's school, by related model label.
_SCOPED_RELATIONS = {
    "agents.tenant": "pk",
    "agents.agent": "tenant_id",
    "agents.user": "tenant_id",
    "agents.run": "tenant_id",
    "threads.thread": "tenant_id",
}


class ScopedAgentFilter(admin.SimpleListFilter):
    """The agent filter, listing only the admin's school's agents."""

    title = _("智能体")
    parameter_name = "agent"

    def lookups(self, request, model_admin):
        from agents.models import Agent

        agents = Agent.objects.all()
        if not request.user.is_superuser:
            agents = agents.filter(tenant_id=request.user.tenant_id)
        return [(a.pk, a.name) for a in agents.order_by("name")]

    def queryset(self, request, queryset):
        return queryset.filter(agent_id=self.value()) if self.value() else queryset


def text_preview(text: str, chars: int = PREVIEW_CHARS):
    """A long text as a readable column: wrapped, cut at `chars`, whole on hover."""
    text = text or ""
    return format_html('<span class="admin-text" title="{}">{}</span>', text, Truncator(text).chars(chars))


def run_link(run_id: str | None):
    """A link to a run's admin page. Ids go through admin quoting: "run_41…" would
    otherwise reach the admin as "runA…" (it reads "_41" as an escaped character)."""
    if not run_id:
        return "—"
    return format_html('<a href="{}">{}</a>', reverse("admin:agents_run_change", args=[quote(run_id)]), run_id)


def token_pair(input_tokens: int, output_tokens: int) -> str:
    """Input and output tokens in one narrow column ("输入 / 输出 token")."""
    return f"{input_tokens:,} / {output_tokens:,}"


def percent(value) -> str:
    return "—" if value is None else f"{round(value * 100)}%"


def confirm_action(model_admin, request, queryset, *, action: str, title, question, button, deleting: bool = False):
    """None once the admin said yes (the action goes ahead); else the question page.

    Actions call it first: `if (page := confirm_action(...)) is not None: return page`."""
    if request.POST.get("post") == "yes":
        return None
    opts = model_admin.model._meta
    context = {
        **model_admin.admin_site.each_context(request),
        "title": title,
        "question": question,
        "button": button,
        "deleting": deleting,
        "opts": opts,
        "queryset": queryset,
        "objects": [str(obj) for obj in queryset],
        "action": action,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    request.current_app = model_admin.admin_site.name
    return TemplateResponse(request, "admin/confirm_action.html", context)


class OwnerColumnMixin:
    """Whose row it is: the teacher, an API client's end user, or the school (API key)."""

    @admin.display(description=_("教师 / 终端用户"))
    def owner_display(self, obj):
        return owner_label(owner=obj.owner, end_user=obj.end_user)


def owner_label(*, owner, end_user: str) -> str:
    """An end user is an API client's opaque id, never a teacher account: the label says so."""
    if owner is not None:
        name = owner.get_full_name() or owner.first_name
        return f"{name}（{owner.get_username()}）" if name else owner.get_username()
    if end_user:
        return str(_("终端用户 %(id)s（API）")) % {"id": end_user}
    return str(_("全校（API）"))


class TenantScopedAdmin(admin.ModelAdmin):
    #: path from the model to its tenant, for the queryset filter
    tenant_field = "tenant"
    #: school admins may add rows of this model
    school_admin_can_add = False

    def get_queryset(self, request):
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        if is_school_admin(request.user):
            return qs.filter(**{self.tenant_field: request.user.tenant_id})
        return qs.none()

    def get_fields(self, request, obj=None):
        fields = super().get_fields(request, obj)
        if request.user.is_superuser:
            return fields
        return [f for f in fields if f != "tenant"]  # always their own school: nothing to show or choose

    def get_readonly_fields(self, request, obj=None):
        fields = tuple(super().get_readonly_fields(request, obj))
        if not request.user.is_superuser and self.tenant_field == "tenant" and "tenant" not in fields:
            # A school admin can never move a row (a key, an agent) to another school.
            fields += ("tenant",)
        return fields

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        scope = _SCOPED_RELATIONS.get(db_field.related_model._meta.label_lower)
        if field is not None and scope and not request.user.is_superuser:
            field.queryset = field.queryset.filter(**{scope: request.user.tenant_id})
        return field

    def save_model(self, request, obj, form, change):
        if not request.user.is_superuser and self.tenant_field == "tenant":
            obj.tenant_id = request.user.tenant_id
        super().save_model(request, obj, form, change)

    def has_module_permission(self, request):
        return request.user.is_superuser or is_school_admin(request.user)

    def has_view_permission(self, request, obj=None):
        return self.has_module_permission(request)

    def has_change_permission(self, request, obj=None):
        return self.has_module_permission(request)

    def has_delete_permission(self, request, obj=None):
        return self.has_module_permission(request)

    def has_add_permission(self, request):
        return request.user.is_superuser or (self.school_admin_can_add and is_school_admin(request.user))


class ReadOnlyTenantAdmin(TenantScopedAdmin):
    """Rows a machine wrote: visible, never edited by hand."""

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser
