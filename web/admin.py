"""Trimming the admin for school admins: a site title, and django-q2's queue monitor
(successful and failed memory jobs) scoped to the admin's school.

django-q2 registers its own admins for every staff user with model permissions and no
school filter. Successful and failed tasks are re-registered here, narrowed to the memory
jobs of this school's runs (the runner names each job `memory <run_id>`), read-only, and
without the resubmit action for school admins. Schedules and the ORM broker's queued
tasks stay with superusers only: a queued task's payload is signed and pickled, so it
can't be filtered by school in the database, and memory jobs are never scheduled.

django-q2's own column names and filters (Name, Group, Cluster, …) have no Chinese
translation: the task lists show our columns instead, each named in both languages; the
machine's fields (function, group, cluster) are for superusers only."""

from django.apps import apps
from django.contrib import admin
from django.db.models import CharField, Subquery, Value
from django.db.models.functions import Concat
from django.utils.translation import gettext_lazy as _
from django_q.admin import FailAdmin, TaskAdmin
from django_q.models import Failure, Success

from agents.admin_base import is_school_admin, run_link, text_preview
from agents.models import Run

admin.site.site_header = _("教学助手 · 管理后台")
admin.site.site_title = _("教学助手管理后台")
admin.site.index_title = _("学校数据")
# The lists are wide (text previews, owners, tokens, cost): they get the whole width on a
# school laptop; the home page and the breadcrumbs lead everywhere the sidebar did.
admin.site.enable_nav_sidebar = False
# The section django-q2 names after Q_CLUSTER["label"], which settings can't translate.
apps.get_app_config("django_q").verbose_name = _("记忆队列")

MEMORY_JOB_PREFIX = "memory "  # the runner names each memory job "memory <run_id>"


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
            .annotate(job_name=Concat(Value(MEMORY_JOB_PREFIX), "id", output_field=CharField()))
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

    # Columns and fields, in the admin's language.
    list_filter = ()
    search_fields = ("name",)
    ordering = ("-started",)
    date_hierarchy = "started"
    SCHOOL_COLUMNS = ("run_link", "started_at", "stopped_at", "seconds", "result_preview")
    OPERATOR_COLUMNS = ("function", "group_name", "cluster_name", "attempts")

    def get_list_display(self, request):
        return self.SCHOOL_COLUMNS + (self.OPERATOR_COLUMNS if request.user.is_superuser else ())

    def get_fields(self, request, obj=None):
        return self.get_list_display(request)

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj)

    @admin.display(description=_("运行"), ordering="name")
    def run_link(self, task):
        name = task.name or ""
        if not name.startswith(MEMORY_JOB_PREFIX):
            return name
        run_id = name[len(MEMORY_JOB_PREFIX):].split(" ")[0]  # also "memory <run_id> sweep <n>"
        return run_link(run_id)

    @admin.display(description=_("开始时间"), ordering="started")
    def started_at(self, task):
        return task.started

    @admin.display(description=_("结束时间"), ordering="stopped")
    def stopped_at(self, task):
        return task.stopped

    @admin.display(description=_("耗时（秒）"))
    def seconds(self, task):
        return f"{task.time_taken():.1f}" if task.started and task.stopped else "—"

    @admin.display(description=_("结果"))
    def result_preview(self, task):
        return text_preview(str(task.result) if task.result is not None else "")

    @admin.display(description=_("函数"))
    def function(self, task):
        return task.func

    @admin.display(description=_("分组"))
    def group_name(self, task):
        return task.group or "—"

    @admin.display(description=_("集群"))
    def cluster_name(self, task):
        return task.cluster or "—"

    @admin.display(description=_("尝试次数"))
    def attempts(self, task):
        return task.attempt_count


class SchoolSuccessAdmin(SchoolTaskMixin, TaskAdmin):
    pass


class SchoolFailureAdmin(SchoolTaskMixin, FailAdmin):
    pass


for model, model_admin in ((Success, SchoolSuccessAdmin), (Failure, SchoolFailureAdmin)):
    if admin.site.is_registered(model):
        admin.site.unregister(model)
    admin.site.register(model, model_admin)
