"""The audit trail of erasures. A receipt proves what was removed without holding any of
it: counts per kind, when, by whom, and for whom as a keyed hash (HMAC with SECRET_KEY),
never the identifier or any text."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from agents.models import Tenant, User
from core import ids


def new_receipt_id() -> str:
    return ids.public_id("erase_")


class ErasureReceipt(models.Model):
    class SubjectKind(models.TextChoices):
        TEACHER = "teacher", _("教师")
        END_USER = "end_user", _("终端用户")
        THREAD = "thread", _("会话")
        RETENTION = "retention", _("保留期限")

    class Via(models.TextChoices):
        COMMAND = "command", _("命令行")
        ADMIN = "admin", _("管理后台")
        API = "api", _("API")
        PAGE = "page", _("页面")
        RETENTION = "retention", _("定期清理")

    id = models.CharField(primary_key=True, max_length=32, default=new_receipt_id, editable=False)
    tenant = models.ForeignKey("agents.Tenant", verbose_name=_("学校"), on_delete=models.CASCADE,
                               related_name="erasure_receipts")
    subject_kind = models.CharField(_("对象类型"), max_length=16, choices=SubjectKind.choices)
    # HMAC-SHA256(SECRET_KEY, school id, kind, identifier): a school can show that a given
    # person was erased by recomputing it, and the table alone names nobody.
    subject_hash = models.CharField(_("对象标识（哈希）"), max_length=64, db_index=True)
    requested_via = models.CharField(_("途径"), max_length=16, choices=Via.choices)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("操作人"), null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )
    counts = models.JSONField(_("删除数量"), default=dict)
    started_at = models.DateTimeField(_("开始时间"), default=timezone.now)
    finished_at = models.DateTimeField(_("完成时间"), default=timezone.now)

    class Meta:
        verbose_name = _("删除回执")
        verbose_name_plural = _("删除回执")
        ordering = ["-finished_at"]

    def __str__(self):
        return self.id

    @property
    def total(self) -> int:
        return sum(value for value in self.counts.values() if isinstance(value, int))


class TeacherMemory(User):
    """The admin's list of a school's accounts whose memory can be erased (a proxy: no table)."""

    class Meta:
        proxy = True
        verbose_name = _("教师记忆")
        verbose_name_plural = _("教师记忆")


class SchoolRetention(Tenant):
    """A school admin's view of their own school's retention period (a proxy: no table)."""

    class Meta:
        proxy = True
        verbose_name = _("数据保留期限")
        verbose_name_plural = _("数据保留期限")
