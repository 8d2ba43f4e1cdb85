"""The lexical index, in the database: one scope per (school, agent[, owner]), one row per
indexed document, one posting per (document, term).

Writers take the scope row's lock (SELECT … FOR UPDATE; SQLite's IMMEDIATE transactions
serialize writers anyway), so each document gets the next `seq` of its scope and the
scope's statistics move in the same short transaction as the postings: concurrent
writers can neither lose an update nor commit sequence numbers out of order. Readers
use `version` and `token` to keep their in-process caches current (search/engine.py).
"""

import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from search.terms import MAX_TERM_CHARS


def new_scope_token() -> str:
    return secrets.token_hex(8)


class SearchScope(models.Model):
    """What one query may see: e.g. one teacher's recall for one agent, or one agent's KB."""

    tenant = models.ForeignKey("agents.Tenant", on_delete=models.CASCADE, related_name="search_scopes")
    agent = models.ForeignKey("agents.Agent", on_delete=models.CASCADE, related_name="search_scopes")
    # Set for a private scope (a teacher's recall): deleting the teacher deletes the index
    # of their words with it.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    key = models.CharField(_("范围"), max_length=200, unique=True)
    # Bumped by every write; a document's `seq` is the version that added it, so a cache
    # that has seen version V only needs documents with seq > V.
    version = models.PositiveBigIntegerField(default=0)
    # Replaced whenever documents are removed: caches holding another token start over.
    token = models.CharField(max_length=32, default=new_scope_token)
    # search.terms.ANALYZER_VERSION of the last full (re)index; "" for scopes only ever
    # written incrementally (new scopes are stamped as they are created).
    analyzer = models.CharField(max_length=16, blank=True, default="")
    doc_count = models.PositiveIntegerField(_("文档数"), default=0)
    total_length = models.PositiveBigIntegerField(_("总词数"), default=0)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("检索范围")
        verbose_name_plural = _("检索范围")

    def __str__(self):
        return self.key


class SearchDoc(models.Model):
    scope = models.ForeignKey(SearchScope, on_delete=models.CASCADE, related_name="docs", db_index=False)
    seq = models.PositiveBigIntegerField()
    # The id of what was indexed (a recall entry, a KB chunk), unique in its scope.
    ref = models.CharField(max_length=64)
    length = models.PositiveIntegerField()
    # The document's dense vector (search/vectors.py: float16 bytes), or null: not embedded
    # (dense retrieval off when it was indexed; `manage.py reindex --dense` fills it).
    vector = models.BinaryField(null=True, blank=True)
    # How many distinct terms a query could match in it (search/terms.py `query_terms`):
    # the denominator of "share of the entry's terms the query holds". 0: indexed before
    # it was counted (the engine estimates it from `length`; `manage.py reindex` counts it).
    keys = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "seq"], name="uniq_searchdoc_scope_seq"),
            models.UniqueConstraint(fields=["scope", "ref"], name="uniq_searchdoc_scope_ref"),
        ]


class Posting(models.Model):
    pk = models.CompositePrimaryKey("doc_id", "term")
    doc = models.ForeignKey(SearchDoc, on_delete=models.CASCADE, related_name="postings", db_index=False)
    scope = models.ForeignKey(SearchScope, on_delete=models.CASCADE, related_name="+", db_index=False)
    term = models.CharField(max_length=MAX_TERM_CHARS)
    tf = models.PositiveIntegerField()

    class Meta:
        indexes = [models.Index(fields=["scope", "term"], name="idx_posting_scope_term")]
