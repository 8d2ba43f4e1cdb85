import hashlib
import secrets

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core import ids


class Tenant(models.Model):
    """A school. Every row a school owns points here."""

    id = models.CharField(_("编号"), primary_key=True, max_length=32, default=ids.new_tenant_id, editable=False)
    slug = models.SlugField(_("代号"), max_length=64, unique=True)
    name = models.CharField(_("名称"), max_length=200)
    # Runs and recall entries older than this are erased by the periodic sweep (privacy app).
    retention_days = models.PositiveIntegerField(
        _("保留天数"), default=0, help_text=_("超过这么多天的运行记录和相关历史将被永久删除；0 表示不自动删除。")
    )
    created_at = models.DateTimeField(_("创建时间"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("学校")
        verbose_name_plural = _("学校")
        ordering = ["slug"]

    def __str__(self):
        return self.name or self.slug


class User(AbstractUser):
    """A person who logs in: a teacher or a school admin of one school (superusers: none)."""

    class Role(models.TextChoices):
        TEACHER = "teacher", _("教师")
        SCHOOL_ADMIN = "school_admin", _("学校管理员")

    tenant = models.ForeignKey(
        Tenant, verbose_name=_("学校"), null=True, blank=True, on_delete=models.CASCADE, related_name="users"
    )
    role = models.CharField(_("角色"), max_length=20, choices=Role.choices, default=Role.TEACHER)

    class Meta:
        verbose_name = _("用户")
        verbose_name_plural = _("用户")

    @property
    def is_school_admin(self) -> bool:
        return self.role == self.Role.SCHOOL_ADMIN


def hash_api_key(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiKey(models.Model):
    """A per-school key. Only its hash is stored; the raw key is shown once at creation."""

    PREFIX = "mk_"

    tenant = models.ForeignKey(Tenant, verbose_name=_("学校"), on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(_("名称"), max_length=100, blank=True)
    prefix = models.CharField(_("前缀"), max_length=16, db_index=True, editable=False)
    key_hash = models.CharField(_("密钥哈希"), max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(_("创建时间"), default=timezone.now, editable=False)
    last_used_at = models.DateTimeField(_("最近使用时间"), null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(_("吊销时间"), null=True, blank=True)

    class Meta:
        verbose_name = _("API 密钥")
        verbose_name_plural = _("API 密钥")

    def __str__(self):
        return f"{self.prefix}…"

    @classmethod
    def generate_raw(cls) -> str:
        return cls.PREFIX + secrets.token_urlsafe(32)


class Agent(models.Model):
    class Language(models.TextChoices):
        ZH = "zh", _("中文")
        EN = "en", _("English")

    class ProviderKind(models.TextChoices):
        LOCAL = "local", _("内置本地模型 (llama.cpp)")
        OPENAI = "openai", _("OpenAI 兼容接口")
        OLLAMA = "ollama", _("Ollama")
        SCRIPTED = "scripted", _("脚本（仅测试）")

    id = models.CharField(_("编号"), primary_key=True, max_length=32, default=ids.new_agent_id, editable=False)
    tenant = models.ForeignKey(Tenant, verbose_name=_("学校"), on_delete=models.CASCADE, related_name="agents")
    name = models.CharField(_("名称"), max_length=200)
    language = models.CharField(_("语言"), max_length=2, choices=Language.choices, default=Language.ZH)
    system_prompt = models.TextField(_("系统提示"), blank=True)
    provider_kind = models.CharField(
        _("模型提供方"), max_length=16, choices=ProviderKind.choices, default=ProviderKind.LOCAL
    )
    base_url = models.CharField(_("接口地址"), max_length=500, blank=True)
    model = models.CharField(_("模型"), max_length=200, blank=True)
    # The NAME of the environment variable that holds the secret, never the secret itself.
    api_key_env = models.CharField(_("密钥环境变量名"), max_length=100, blank=True)
    local_first = models.BooleanField(
        _("本地优先"), default=True, help_text=_("记忆相关的模型调用绝不发往云端。")
    )
    max_output_tokens = models.PositiveIntegerField(_("最大输出 token"), default=1024)
    # Memory budgets, in tokens (seed §1/§2.2 defaults).
    budget_total = models.PositiveIntegerField(_("记忆总预算"), default=4500)
    budget_core = models.PositiveIntegerField(_("核心记忆预算"), default=400)
    budget_thread = models.PositiveIntegerField(_("会话前情预算"), default=2000)
    budget_thread_summary = models.PositiveIntegerField(_("滚动摘要预算"), default=600)
    budget_thread_turns = models.PositiveIntegerField(_("最近轮次预算"), default=1200)
    thread_recent_turns = models.PositiveSmallIntegerField(_("原文保留轮数 K"), default=2)
    budget_recall = models.PositiveIntegerField(_("相关历史预算"), default=800)
    recall_top_k = models.PositiveSmallIntegerField(_("相关历史条数"), default=3)
    recall_min_score = models.FloatField(_("相关历史阈值"), default=0.2)
    budget_kb = models.PositiveIntegerField(_("知识库预算"), default=1200)
    archive_outputs = models.BooleanField(_("产物自动归档到知识库"), default=False)
    created_at = models.DateTimeField(_("创建时间"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("智能体")
        verbose_name_plural = _("智能体")
        ordering = ["name"]

    def __str__(self):
        return self.name


class Run(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running", _("运行中")
        COMPLETED = "completed", _("已完成")
        FAILED = "failed", _("失败")
        # The teacher stopped the reply (or the page went away) after part of it arrived:
        # what was streamed is kept as the output, marked as cut.
        STOPPED = "stopped", _("已停止")

    #: a run in one of these states has an output that may be shown and remembered
    WITH_OUTPUT = (Status.COMPLETED, Status.STOPPED)
    #: no longer running: its memory job may run
    FINISHED = (Status.COMPLETED, Status.STOPPED, Status.FAILED)
    #: the provider's finish reason when the reply hit the max-token cap
    FINISH_LENGTH = "length"

    id = models.CharField(_("编号"), primary_key=True, max_length=32, default=ids.new_run_id, editable=False)
    tenant = models.ForeignKey(Tenant, verbose_name=_("学校"), on_delete=models.CASCADE, related_name="runs")
    agent = models.ForeignKey(Agent, verbose_name=_("智能体"), on_delete=models.CASCADE, related_name="runs")
    thread = models.ForeignKey("threads.Thread", verbose_name=_("会话"), on_delete=models.CASCADE, related_name="runs")
    # Memory is private per owner: a teacher, or an API client's opaque end-user id.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, verbose_name=_("教师"),
        on_delete=models.SET_NULL, related_name="runs"
    )
    end_user = models.CharField(_("终端用户"), max_length=128, blank=True, default="")
    continued_from = models.ForeignKey(
        "self", null=True, blank=True, verbose_name=_("接续自"), on_delete=models.SET_NULL, related_name="continuations"
    )
    input = models.TextField(_("输入"))
    output = models.TextField(_("输出"), blank=True, default="")
    status = models.CharField(_("状态"), max_length=16, choices=Status.choices, default=Status.RUNNING)
    error_code = models.CharField(_("错误代码"), max_length=64, blank=True, default="")
    # The provider's finish reason ("stop", "length", …); "length" means cut at max tokens.
    finish_reason = models.CharField(_("结束原因"), max_length=16, blank=True, default="")
    streamed = models.BooleanField(_("流式输出"), default=False)
    created_at = models.DateTimeField(_("创建时间"), default=timezone.now, db_index=True)
    finished_at = models.DateTimeField(_("结束时间"), null=True, blank=True)
    provider_kind = models.CharField(_("模型提供方"), max_length=16, blank=True, default="")
    model = models.CharField(_("模型"), max_length=200, blank=True, default="")
    prompt_tokens = models.PositiveIntegerField(_("输入 token"), default=0)
    completion_tokens = models.PositiveIntegerField(_("输出 token"), default=0)
    cost = models.DecimalField(_("费用"), max_digits=12, decimal_places=6, default=0)
    context = models.JSONField(_("装配的上下文"), default=dict, blank=True)
    memory_enqueued_at = models.DateTimeField(_("记忆任务入队时间"), null=True, blank=True)
    memory_done_at = models.DateTimeField(_("记忆任务完成时间"), null=True, blank=True)
    memory_sweeps = models.PositiveSmallIntegerField(_("记忆任务重发次数"), default=0)  # re-enqueued by memory_sweep
    # The outbox (agents/tasks.py): each write-path step's last outcome, by layer name
    # ("done", "skipped", "retry"), and the lease of the job working on it right now.
    memory_steps = models.JSONField(_("记忆步骤"), default=dict, blank=True)
    memory_attempts = models.PositiveSmallIntegerField(_("记忆任务尝试次数"), default=0)  # jobs that took the lease
    memory_lease_token = models.CharField(_("租约令牌"), max_length=32, blank=True, default="")
    memory_leased_at = models.DateTimeField(_("租约开始时间"), null=True, blank=True)
    memory_lease_until = models.DateTimeField(_("租约到期时间"), null=True, blank=True)
    memory_retry_at = models.DateTimeField(_("重试时间"), null=True, blank=True)  # a step asked to be retried then
    # Refreshed every few seconds while the run's reply is being produced; a run whose
    # heartbeat stopped lost its server process and is failed as "abandoned".
    heartbeat_at = models.DateTimeField(_("心跳时间"), default=timezone.now)

    class Meta:
        verbose_name = _("运行")
        verbose_name_plural = _("运行")
        ordering = ["created_at"]
        indexes = [
            models.Index(fields=["thread", "created_at"], name="idx_runs_thread"),
            # The reconciler's scans: unfinished memory work, and runs still running.
            models.Index(fields=["memory_done_at", "status"], name="idx_runs_memory_todo"),
        ]

    def __str__(self):
        return self.id

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    @property
    def has_output(self) -> bool:
        return self.status in self.WITH_OUTPUT

    @property
    def cut_at_limit(self) -> bool:
        """The reply stopped at the agent's max output tokens, not because it was done."""
        return self.status == self.Status.COMPLETED and self.finish_reason == self.FINISH_LENGTH


class MemoryOp(models.Model):
    """One LLM call made for memory work (compression, extraction, …); its cost never touches the run."""

    class Status(models.TextChoices):
        OK = "ok", _("成功")
        FAILED = "failed", _("失败")

    class Kind(models.TextChoices):
        COMPRESS = "compress", _("会话压缩")
        EXTRACT = "extract", _("事实提炼")
        RECALL_SUMMARY = "recall_summary", _("历史摘要")

    id = models.CharField(_("编号"), primary_key=True, max_length=32, default=ids.new_memory_op_id, editable=False)
    tenant = models.ForeignKey(Tenant, verbose_name=_("学校"), on_delete=models.CASCADE, related_name="memory_ops")
    agent = models.ForeignKey(Agent, verbose_name=_("智能体"), on_delete=models.CASCADE, related_name="memory_ops")
    thread = models.ForeignKey(
        "threads.Thread", null=True, blank=True, verbose_name=_("会话"),
        on_delete=models.SET_NULL, related_name="memory_ops"
    )
    run = models.ForeignKey(
        Run, null=True, blank=True, verbose_name=_("运行"), on_delete=models.SET_NULL, related_name="memory_ops"
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, verbose_name=_("教师"),
        on_delete=models.SET_NULL, related_name="memory_ops"
    )
    end_user = models.CharField(_("终端用户"), max_length=128, blank=True, default="")
    kind = models.CharField(_("类型"), max_length=32, choices=Kind.choices)
    status = models.CharField(_("状态"), max_length=16, choices=Status.choices, default=Status.OK)
    error_code = models.CharField(_("错误代码"), max_length=64, blank=True, default="")
    provider_kind = models.CharField(_("模型提供方"), max_length=16, blank=True, default="")
    model = models.CharField(_("模型"), max_length=200, blank=True, default="")
    input_tokens = models.PositiveIntegerField(_("输入 token"), default=0)
    output_tokens = models.PositiveIntegerField(_("输出 token"), default=0)
    cost = models.DecimalField(_("费用"), max_digits=12, decimal_places=6, default=0)
    rejected_count = models.PositiveIntegerField(_("红线拦截数"), default=0)
    # The runs a published compression folded into the summary (empty for other kinds and
    # for folds discarded after a lost race), so "each run folded once" is checkable.
    covered_runs = models.JSONField(_("覆盖的运行"), default=list, blank=True)
    at = models.DateTimeField(_("时间"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("记忆操作")
        verbose_name_plural = _("记忆操作")
        ordering = ["-at"]
        indexes = [models.Index(fields=["tenant", "agent", "at"], name="idx_memops_tenant_agent_at")]

    def __str__(self):
        return f"{self.get_kind_display()} {self.at:%Y-%m-%d %H:%M}"
