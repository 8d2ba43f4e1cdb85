"""Admin scoped to a school: a school admin sees and edits only their school's rows;
superusers see every school."""

from django.contrib import admin


def is_school_admin(user) -> bool:
    return bool(user.is_active and user.is_staff and getattr(user, "tenant_id", None)
                and getattr(user, "role", "") == "school_admin")


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
