from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core import ids


def new_document_id() -> str:
    return ids.public_id("doc_")


def new_chunk_id() -> str:
    return ids.public_id("chk_")


class Document(models.Model):
    """L4: a document of one agent's knowledge base, shared by the school's teachers who
    use that agent."""

    id = models.CharField(_("编号"), primary_key=True, max_length=32, default=new_document_id, editable=False)
    tenant = models.ForeignKey(
        "agents.Tenant", verbose_name=_("学校"), on_delete=models.CASCADE, related_name="documents"
    )
    agent = models.ForeignKey("agents.Agent", verbose_name=_("智能体"), on_delete=models.CASCADE,
                              related_name="documents")
    title = models.CharField(_("标题"), max_length=200)
    # Where it came from: "file:<name>", "text" (typed or sent as JSON), or "run:<run id>".
    source = models.CharField(_("来源"), max_length=300, blank=True, default="")
    text = models.TextField(_("正文"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("上传者"), null=True, blank=True, on_delete=models.SET_NULL,
        related_name="documents",
    )
    # Set for a run output archived by the memory job (agent opt-in): one document per run.
    source_run = models.OneToOneField(
        "agents.Run", null=True, blank=True, verbose_name=_("来源运行"),
        on_delete=models.SET_NULL, related_name="archived_document"
    )
    chunk_count = models.PositiveIntegerField(_("分块数"), default=0)
    token_count = models.PositiveIntegerField(_("token 数"), default=0)
    created_at = models.DateTimeField(_("创建时间"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("知识库文档")
        verbose_name_plural = _("知识库文档")
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["tenant", "agent", "-created_at"], name="idx_documents_agent_time")]

    def __str__(self):
        return self.title


class Chunk(models.Model):
    """A token window of a document (neighbours overlap); the unit that is indexed and injected."""

    id = models.CharField(primary_key=True, max_length=32, default=new_chunk_id, editable=False)
    tenant = models.ForeignKey("agents.Tenant", on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey("agents.Agent", on_delete=models.CASCADE, related_name="+")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    position = models.PositiveIntegerField()
    text = models.TextField()
    tokens = models.PositiveIntegerField()

    class Meta:
        ordering = ["document", "position"]
        constraints = [models.UniqueConstraint(fields=["document", "position"], name="uniq_chunk_document_position")]

    def __str__(self):
        return f"{self.document_id}#{self.position}"

    @staticmethod
    def text_for_search(title: str, text: str) -> str:
        """What a chunk is indexed as: its document's title, then its text."""
        return f"{title}\n{text}"
