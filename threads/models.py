from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core import ids


class Thread(models.Model):
    """L1: a conversation. Its rolling summary covers runs up to `summary_upto_at`."""

    class Status(models.TextChoices):
        ACTIVE = "active", _("进行中")
        ARCHIVED = "archived", _("已归档")

    id = models.CharField(_("编号"), primary_key=True, max_length=32, default=ids.new_thread_id, editable=False)
    tenant = models.ForeignKey("agents.Tenant", verbose_name=_("学校"), on_delete=models.CASCADE, related_name="threads")
    agent = models.ForeignKey("agents.Agent", verbose_name=_("智能体"), on_delete=models.CASCADE, related_name="threads")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, verbose_name=_("教师"),
        on_delete=models.CASCADE, related_name="threads"
    )
    end_user = models.CharField(_("终端用户"), max_length=128, blank=True, default="")
    title = models.CharField(_("标题"), max_length=200, blank=True, default="")
    rolling_summary = models.TextField(_("滚动摘要"), blank=True, default="")
    # A sortable cursor: the created_at of the newest run folded into the summary.
    # Never a run id (ids don't sort, so they repeat or skip runs).
    summary_upto_at = models.DateTimeField(_("摘要覆盖至"), null=True, blank=True)
    status = models.CharField(_("状态"), max_length=16, choices=Status.choices, default=Status.ACTIVE)
    created_at = models.DateTimeField(_("创建时间"), default=timezone.now, editable=False)
    updated_at = models.DateTimeField(_("最近活动"), default=timezone.now)

    class Meta:
        verbose_name = _("会话")
        verbose_name_plural = _("会话")
        ordering = ["-updated_at"]
        indexes = [
            models.Index(
                fields=["tenant", "agent", "-updated_at"], name="idx_threads_tenant_agent_upd"
            ),
        ]

    def __str__(self):
        return self.title or self.id
