from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core import ids


def new_recall_entry_id() -> str:
    return ids.public_id("rec_")


class RecallEntry(models.Model):
    """L3: one finished exchange, summarised and indexed for search. Append-only: entries
    are never edited; only retention (off by default) removes old ones."""

    class SummaryKind(models.TextChoices):
        MODEL = "model", _("模型摘要")
        EXCERPT = "excerpt", _("原文节选")
        IMPORTED = "imported", _("导入")

    id = models.CharField(_("编号"), primary_key=True, max_length=32, default=new_recall_entry_id, editable=False)
    tenant = models.ForeignKey(
        "agents.Tenant", verbose_name=_("学校"), on_delete=models.CASCADE, related_name="recall_entries"
    )
    agent = models.ForeignKey(
        "agents.Agent", verbose_name=_("智能体"), on_delete=models.CASCADE, related_name="recall_entries"
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, verbose_name=_("教师"),
        on_delete=models.CASCADE, related_name="recall_entries"
    )
    end_user = models.CharField(_("终端用户"), max_length=128, blank=True, default="")
    thread = models.ForeignKey(
        "threads.Thread", null=True, blank=True, verbose_name=_("会话"),
        on_delete=models.SET_NULL, related_name="recall_entries"
    )
    # One entry per run (the memory queue delivers at least once).
    run = models.OneToOneField(
        "agents.Run", null=True, blank=True, verbose_name=_("来源运行"),
        on_delete=models.SET_NULL, related_name="recall_entry"
    )
    # The run this entry records, also for entries imported from the old system's log.
    run_ref = models.CharField(_("运行"), max_length=64)
    input = models.TextField(_("输入"))
    summary = models.TextField(_("摘要"), blank=True, default="")
    summary_kind = models.CharField(_("摘要方式"), max_length=16, choices=SummaryKind.choices)
    happened_at = models.DateTimeField(_("发生时间"))
    created_at = models.DateTimeField(_("创建时间"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("相关历史条目")
        verbose_name_plural = _("相关历史条目")
        ordering = ["happened_at"]
        constraints = [models.UniqueConstraint(fields=["agent", "run_ref"], name="uniq_recall_agent_run_ref")]
        indexes = [
            models.Index(fields=["tenant", "agent", "owner", "end_user", "happened_at"], name="idx_recall_scope_time"),
        ]

    def __str__(self):
        return f"{self.run_ref} {self.happened_at:%Y-%m-%d}"

    @staticmethod
    def text_for_search(input_text: str, summary: str) -> str:
        return f"{input_text}\n{summary}"

    def search_text(self) -> str:
        return self.text_for_search(self.input, self.summary)
