"""L2 core memory: facts a person confirmed (σ.core), and the candidates the memory job
proposes for a person to confirm or delete.

Both are private to one owner of one agent: a teacher, an API client's end user, or
the school-wide API scope (no owner, empty end_user), exactly like threads and runs.
"""

from django.conf import settings
from django.db import models
from django.db.models import F, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core import ids

MAX_FACT_CHARS = 200


def new_fact_id() -> str:
    return ids.public_id("fact_")


def new_candidate_id() -> str:
    return ids.public_id("cand_")


class OwnedByOne(models.Model):
    """The owner columns of Run and Thread: school, agent, teacher or end user."""

    tenant = models.ForeignKey("agents.Tenant", verbose_name=_("学校"), on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey("agents.Agent", verbose_name=_("智能体"), on_delete=models.CASCADE, related_name="+")
    # CASCADE, not SET_NULL: a deleted teacher's facts must not fall into the
    # school-wide scope (owner NULL), where every API client would see them.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("教师"), null=True, blank=True, on_delete=models.CASCADE,
        related_name="+",
    )
    end_user = models.CharField(_("终端用户"), max_length=128, blank=True, default="")
    text = models.CharField(_("内容"), max_length=MAX_FACT_CHARS)
    # The text folded for duplicate detection (width, case, punctuation, whitespace).
    normalized = models.CharField(max_length=MAX_FACT_CHARS, editable=False)
    source_run = models.ForeignKey(
        "agents.Run", verbose_name=_("来源运行"), null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(_("创建时间"), default=timezone.now, editable=False)

    class Meta:
        abstract = True

    def __str__(self):
        return self.text


class CoreFact(OwnedByOne):
    """A confirmed fact. Only a person creates one: by confirming a candidate or by typing it."""

    class Via(models.TextChoices):
        API = "api", _("API")
        ADMIN = "admin", _("管理后台")
        PAGE = "page", _("页面")

    class Origin(models.TextChoices):
        CANDIDATE = "candidate", _("确认候选")
        MANUAL = "manual", _("手动添加")

    id = models.CharField(_("编号"), primary_key=True, max_length=32, default=new_fact_id, editable=False)
    # Touched on every injection; the least recently used fact is evicted when full.
    last_used = models.DateTimeField(_("最近使用"), default=timezone.now)
    origin = models.CharField(_("来源"), max_length=16, choices=Origin.choices, default=Origin.CANDIDATE)
    confirmed_at = models.DateTimeField(_("确认时间"), default=timezone.now)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("确认人"), null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )
    confirmed_via = models.CharField(_("确认途径"), max_length=16, choices=Via.choices, default=Via.API)
    updated_at = models.DateTimeField(_("修改时间"), default=timezone.now)

    class Meta:
        verbose_name = _("核心记忆事实")
        verbose_name_plural = _("核心记忆事实")
        ordering = ["-last_used", "-created_at"]
        indexes = [
            models.Index(fields=["tenant", "agent", "owner", "end_user", "last_used"], name="idx_corefact_scope_used"),
        ]


class CoreCandidate(OwnedByOne):
    """A fact the memory job proposed. Waits for a person; never injected."""

    id = models.CharField(_("编号"), primary_key=True, max_length=32, default=new_candidate_id, editable=False)
    confidence = models.FloatField(_("置信度"), default=0.5)
    # How many exchanges proposed it (a repeat raises the confidence).
    seen_count = models.PositiveIntegerField(_("提出次数"), default=1)
    updated_at = models.DateTimeField(_("更新时间"), default=timezone.now)

    class Meta:
        verbose_name = _("候选事实")
        verbose_name_plural = _("候选事实")
        ordering = ["-confidence", "-created_at"]
        indexes = [
            models.Index(fields=["tenant", "agent", "owner", "end_user", "confidence"], name="idx_corecand_scope_conf"),
        ]
        # One pending candidate per text and scope, even with several workers. The owner is
        # NULL for the school-wide scope and NULLs are distinct in a plain unique index, so
        # the index is on COALESCE(owner, 0): the same rule on PostgreSQL and SQLite (where
        # NULLS NOT DISTINCT does not exist). User ids start at 1.
        constraints = [
            models.UniqueConstraint(
                F("tenant"), F("agent"), Coalesce(F("owner"), Value(0)), F("end_user"), F("normalized"),
                name="uniq_corecand_scope_text",
            ),
        ]


class CoreExtraction(models.Model):
    """The claim on one run's extraction, so a retried memory job never mines a run twice.

    A claim left unfinished (the worker died) may be taken again once the job lease it was
    made under is gone (a claim made outside a job: once older than the job timeout).
    """

    class Outcome(models.TextChoices):
        PENDING = "", _("进行中")
        PROPOSED = "proposed", _("已提出候选")
        NONE = "none", _("无可记内容")
        UNPARSABLE = "unparsable", _("无法解析")
        PROVIDER_FAILED = "provider_failed", _("模型调用失败")

    run = models.OneToOneField("agents.Run", primary_key=True, on_delete=models.CASCADE, related_name="+")
    claimed_at = models.DateTimeField(default=timezone.now)
    # The memory job lease (Run.memory_lease_token) the claim was made under: the claim
    # lives exactly as long as that lease.
    lease_token = models.CharField(max_length=32, blank=True, default="")
    finished_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=16, choices=Outcome.choices, blank=True, default="")
    proposed = models.PositiveSmallIntegerField(default=0)
    rejected = models.PositiveSmallIntegerField(default=0)

    class Meta:
        verbose_name = _("提炼记录")
        verbose_name_plural = _("提炼记录")
