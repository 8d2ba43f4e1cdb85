"""Trimming the admin for school admins: a site title, and django-q2's queue monitor
(successful and failed memory jobs) scoped to the admin's school.

django-q2 registers its own admins for every staff user with model permissions and no
school filter. Successful and failed tasks are re-registered here, narrowed to the memory
jobs of this school's runs (the runner names each job `memory <run_id>`), read-only, and
without the resubmit action for school admins. Schedules and the ORM broker's queued
tasks stay with superusers only: a queued task's payload is signed and pickled, so it
can't be filtered by school in the database, and memory jobs are never scheduled."""

from django.contrib import admin
from django.db.models import CharField, Subquery, Value
from django.db.models.functions import Concat
from django.utils.translation import gettext_lazy as _
from django_q.admin import FailAdmin, TaskAdmin
from django_q.models import Failure, Success

from agents.admin_base import is_school_admin
from agents.models import Run

admin.site.site_header = _("教学助手 · 管理后台")
admin.site.site_title = _("教学助手管理后台")
admin.site.index_title = _("学校数据")


class SchoolTaskMixin:
    """A school admin sees the memory jobs of their school's runs, and only looks."""

    def get_queryset(self, request):
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        if not is_school_admin(request.user):
            return qs.none()
        job_names = (
            Run.objects.filter(tenant_id=request.user.tenant_id)
            .annotate(job_name=Concat(Value("memory "), "id", output_field=CharField()))
            .values("job_name")
        )
        return qs.filter(name__in=Subquery(job_names))

    def has_module_permission(self, request):
        return request.user.is_superuser or is_school_admin(request.user)

    def has_view_permission(self, request, obj=None):
        return self.has_module_permission(request)

    def has_change_permission(self, request, obj=None):
        return request.user.is_superuser

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser

    def get_actions(self, request):
        return super().get_actions(request) if request.user.is_superuser else {}


class SchoolSuccessAdmin(SchoolTaskMixin, TaskAdmin):
    pass


class SchoolFailureAdmin(SchoolTaskMixin, FailAdmin):
    pass


for model, model_admin in ((Success, SchoolSuccessAdmin), (Failure, SchoolFailureAdmin)):
    if admin.site.is_registered(model):
        admin.site.unregister(model)
    admin.site.register(model, model_admin)
