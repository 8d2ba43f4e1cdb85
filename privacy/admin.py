"""The admin's erasure: an action on the school's teacher list and a form for an API end
user, each through a confirmation page listing what will go (a dry run of the very same
removal), and the receipts, read-only. A school admin only ever sees and erases their own
school's people; superusers use `manage.py erase` or any school's lists."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext_lazy as _

from agents.admin_base import ReadOnlyTenantAdmin, TenantScopedAdmin, is_school_admin
from core.errors import AppError
from privacy.models import ErasureReceipt, SchoolRetention, TeacherMemory
from privacy.services import counts_labelled, owner_erase, subject_for_end_user, subject_for_teacher

CONFIRM_TEMPLATE = "admin/privacy/erase_confirm.html"


def _confirmation(request, admin_site_context, *, previews, hidden: dict, title):
    context = {
        **admin_site_context,
        "title": title,
        "previews": [(label, counts_labelled(receipt["counts"]), receipt["total"]) for label, receipt in previews],
        # (name, value) pairs: a name may repeat (the ticked rows of an action)
        "hidden": [(name, item) for name, value in hidden.items()
                   for item in (value if isinstance(value, list) else [value])],
    }
    return TemplateResponse(request, CONFIRM_TEMPLATE, context)


@admin.register(TeacherMemory)
class TeacherMemoryAdmin(TenantScopedAdmin):
    list_display = ("username", "first_name", "last_name", "role", "is_active")
    search_fields = ("username", "first_name", "last_name")
    actions = ["erase_memory"]
    list_display_links = None

    def get_queryset(self, request):
        return super().get_queryset(request).filter(tenant__isnull=False)  # operators have no school memory

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description=_("彻底删除所选教师的全部记忆…"))
    def erase_memory(self, request, queryset):
        subjects = [subject_for_teacher(tenant=user.tenant, username=user.username)
                    for user in queryset.select_related("tenant")]
        if request.POST.get("post") == "yes":
            for subject in subjects:
                receipt = owner_erase(subject=subject, via=ErasureReceipt.Via.ADMIN, requested_by=request.user)
                self.message_user(request, _("已删除 %(name)s 的全部记忆，回执 %(receipt)s，共 %(n)d 行。") % {
                    "name": subject.identifier, "receipt": receipt["receipt_id"], "n": receipt["total"]},
                    messages.SUCCESS)
            return None
        previews = [(subject.identifier, owner_erase(subject=subject, via=ErasureReceipt.Via.ADMIN,
                                                     requested_by=request.user, dry_run=True))
                    for subject in subjects]
        hidden = {"action": "erase_memory", "post": "yes",
                  admin.helpers.ACTION_CHECKBOX_NAME: [str(user.pk) for user in queryset]}
        return _confirmation(request, self.admin_site.each_context(request), previews=previews, hidden=hidden,
                             title=_("确认彻底删除"))


class EndUserEraseForm(forms.Form):
    end_user = forms.CharField(label=_("终端用户 ID"), max_length=128)


@admin.register(ErasureReceipt)
class ErasureReceiptAdmin(ReadOnlyTenantAdmin):
    list_display = ("id", "finished_at", "subject_kind", "requested_via", "requested_by", "total_rows")
    list_filter = ("subject_kind", "requested_via")
    readonly_fields = ("id", "tenant", "subject_kind", "subject_hash", "requested_via", "requested_by", "started_at",
                       "finished_at", "counts_table")
    fields = readonly_fields
    change_list_template = "admin/privacy/erasurereceipt/change_list.html"

    @admin.display(description=_("删除行数"))
    def total_rows(self, receipt):
        return receipt.total

    @admin.display(description=_("删除数量"))
    def counts_table(self, receipt):
        return "; ".join(f"{label}: {count}" for label, count in counts_labelled(receipt.counts)) or "0"

    def get_urls(self):
        view = self.admin_site.admin_view(self.erase_end_user_view)
        return [path("erase-end-user/", view, name="privacy_erase_end_user"), *super().get_urls()]

    def erase_end_user_view(self, request):
        """An API client's end user has no account to tick in a list: the admin types the id."""
        if not is_school_admin(request.user):
            raise PermissionDenied  # it erases within the admin's own school; operators use the command
        form = EndUserEraseForm(request.POST or None)
        context = {**self.admin_site.each_context(request), "title": _("删除终端用户的全部记忆"), "form": form}
        if request.method == "POST" and form.is_valid():
            try:
                subject = subject_for_end_user(tenant=request.user.tenant, end_user=form.cleaned_data["end_user"])
            except AppError as exc:
                form.add_error("end_user", exc.message)
                return TemplateResponse(request, "admin/privacy/erase_end_user.html", context)
            if request.POST.get("post") == "yes":
                receipt = owner_erase(subject=subject, via=ErasureReceipt.Via.ADMIN, requested_by=request.user)
                self.message_user(request, _("已删除该终端用户的全部记忆，回执 %(receipt)s，共 %(n)d 行。") % {
                    "receipt": receipt["receipt_id"], "n": receipt["total"]}, messages.SUCCESS)
                return redirect(reverse("admin:privacy_erasurereceipt_changelist"))
            preview = owner_erase(subject=subject, via=ErasureReceipt.Via.ADMIN, requested_by=request.user,
                                  dry_run=True)
            return _confirmation(request, self.admin_site.each_context(request),
                                 previews=[(subject.identifier, preview)],
                                 hidden={"end_user": subject.identifier, "post": "yes"},
                                 title=_("确认彻底删除"))
        return TemplateResponse(request, "admin/privacy/erase_end_user.html", context)


@admin.register(SchoolRetention)
class SchoolRetentionAdmin(TenantScopedAdmin):
    """Runs and recall entries older than `retention_days` are erased by the hourly sweep
    (privacy.tasks.retention_sweep); 0 keeps everything."""

    tenant_field = "pk"
    list_display = ("name", "slug", "retention_days")
    fields = ("name", "slug", "retention_days")
    readonly_fields = ("name", "slug")

    def has_delete_permission(self, request, obj=None):
        return False
