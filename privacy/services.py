"""Erasure: one path removes what the system holds about an owner (a teacher, or an API
client's end user within one school), a deleted conversation, or what a school's
retention period has outlived, and leaves a receipt.

Invariants:

- What goes is decided by a `Selection` (querysets built from the owner, the thread or
  the retention cut-off); `_remove` is the only code that deletes, so the command, the
  admin action, the API, thread deletion and retention can't drift apart.
- Derived rows go before the runs they came from (SET_NULL foreign keys would otherwise
  orphan them): candidates, extraction claims, recall entries with their index postings,
  archived outputs with their chunks and postings, memory ops, queue items and queue
  results, admin log lines, then the runs, then the owner's own rows and threads.
- Another owner's rows are never deleted. The one thing we do change in them: a stored
  context (Run.context) that injected erased content (a KB passage of an erased document,
  a recall entry, a fact) has that section's text cut out; the row stays.
- Short transactions, in batches of runs; the whole removal repeats until a pass finds
  nothing, so a memory job that was mid-flight when the erase began leaves nothing
  behind: its writes point at deleted runs and fail their foreign keys, and whatever
  committed in between is caught by the next pass. A queued job whose run is gone does
  nothing (agents.tasks.memory_job returns "missing").
- Idempotent: erasing twice removes nothing the second time (the receipt says 0).
- A dry run performs the same removal inside a transaction that is rolled back, so its
  counts are exactly what a real run would remove at that moment.
- The receipt holds counts, times, the actor, and the subject as an HMAC keyed with
  SECRET_KEY: never an identifier or any text.
- No network or model call anywhere here.
"""

import hashlib
import hmac
import logging
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import OperationalError, connection, transaction
from django.db.models import Q, QuerySet, TextField
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django_q.models import OrmQ, Task

from agents.actor import END_USER_MAX
from agents.models import MemoryOp, Run, Tenant, User
from core.errors import AppError, NotFound
from core.text import validate_text
from corememory.models import CoreCandidate, CoreExtraction, CoreFact
from knowledge.models import Chunk, Document
from knowledge.scopes import kb_scope
from knowledge.services import document_remove
from privacy.models import ErasureReceipt
from recall.models import RecallEntry
from recall.scopes import recall_scope, recall_scope_of
from search.models import Posting, SearchDoc, SearchScope
from search.services import index_remove
from threads.models import Thread
from threads.selectors import thread_get_for_actor

log = logging.getLogger(__name__)

#: runs removed per transaction (SQLite holds its one write lock for each)
RUN_BATCH = 200
#: a removal repeats until a pass finds nothing, at most this often
MAX_PASSES = 3
#: what replaces erased text inside another run's stored prompt
REDACTED = "[已删除]"
MEMORY_JOB = "agents.tasks.memory_job"

#: every kind a receipt counts, in the order it is shown, with its label
KIND_LABELS = {
    "runs": _("运行（含输入、输出和装配的上下文）"),
    "threads": _("会话（含滚动摘要）"),
    "facts": _("已确认的事实"),
    "facts_unlinked": _("保留但解除来源关联的事实"),
    "candidates": _("候选事实"),
    "extractions": _("提炼记录"),
    "recall_entries": _("相关历史条目"),
    "index_scopes": _("检索范围"),
    "index_documents": _("检索索引文档"),
    "index_postings": _("检索倒排项"),
    "documents": _("知识库文档（上传的和归档的产物）"),
    "chunks": _("知识库分块"),
    "memory_ops": _("记忆操作记录"),
    "queue_items": _("等待中的记忆任务"),
    "task_results": _("记忆任务结果"),
    "admin_log_entries": _("管理后台日志"),
    "contexts_redacted": _("其他运行中被删去相应内容的上下文"),
}
KINDS = tuple(KIND_LABELS)


# --- who ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Subject:
    """Whose memory: a teacher of the school, or an end user of the school's API clients."""

    tenant: Tenant
    kind: str  # ErasureReceipt.SubjectKind.TEACHER or END_USER
    identifier: str  # the username or the end-user id (hashed before it is stored)
    user: User | None = None

    @property
    def end_user(self) -> str:
        return self.identifier if self.kind == ErasureReceipt.SubjectKind.END_USER else ""

    def owner_q(self) -> Q:
        if self.user is not None:
            return Q(tenant=self.tenant, owner=self.user)
        return Q(tenant=self.tenant, owner__isnull=True, end_user=self.end_user)


def subject_hash(*, tenant_id: str, kind: str, identifier: str) -> str:
    """The receipt's "for whom": an HMAC keyed with SECRET_KEY, so the table names nobody,
    yet the school can show a given person was erased by recomputing it."""
    message = f"{tenant_id}\n{kind}\n{identifier}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()


def subject_for_teacher(*, tenant: Tenant, username: str) -> Subject:
    user = User.objects.filter(tenant=tenant, username=username or "").first()
    if user is None:
        raise NotFound("teacher")
    return Subject(tenant=tenant, kind=ErasureReceipt.SubjectKind.TEACHER, identifier=user.username, user=user)


def subject_for_end_user(*, tenant: Tenant, end_user: str) -> Subject:
    end_user = validate_text(end_user or "", field="end_user").strip()
    if not end_user:
        # A blank id would select the school-wide scope: never erase that by accident.
        raise AppError("invalid_user", "end user id must not be blank", status=422)
    if len(end_user) > END_USER_MAX:
        raise AppError("invalid_user", f"end user id must be at most {END_USER_MAX} characters", status=422)
    return Subject(tenant=tenant, kind=ErasureReceipt.SubjectKind.END_USER, identifier=end_user)


def subject_of_actor(actor) -> Subject:
    """Whose export an actor may take: a teacher's own; an API key's named end user."""
    if actor.user is not None:
        return Subject(tenant=actor.tenant, kind=ErasureReceipt.SubjectKind.TEACHER, identifier=actor.user.username,
                       user=actor.user)
    if not actor.end_user:
        raise AppError("user_required", "pass ?user= to export one end user's memory", status=422)
    return Subject(tenant=actor.tenant, kind=ErasureReceipt.SubjectKind.END_USER, identifier=actor.end_user)



# --- what --------------------------------------------------------------------------------


@dataclass
class Selection:
    """What one erasure removes. `runs` and everything derived from them always go;
    the rest depends on the caller."""

    tenant: Tenant
    runs: QuerySet
    threads: QuerySet
    #: the owner's own rows, not tied to a run (owner erase only)
    facts: QuerySet | None = None
    candidates: QuerySet | None = None
    recall_entries: QuerySet | None = None
    documents: QuerySet | None = None
    memory_ops: QuerySet | None = None
    recall_scope_keys: list[str] = field(default_factory=list)
    #: archived outputs of the runs go too (owner erase, conversation delete), or stay
    #: as the school's knowledge with the link cut (retention)
    drop_archived_documents: bool = True
    #: memory-op rows (no content; cost history) of the runs go too, or stay unlinked
    drop_run_memory_ops: bool = True
    #: the owner keeps other runs whose stored prompts may show erased runs, entries or
    #: facts (conversation delete, retention); after an owner erase none are left, and
    #: only shared knowledge-base passages can sit in someone else's prompt
    owner_keeps_runs: bool = True


def selection_for_owner(subject: Subject) -> Selection:
    owner_q = subject.owner_q()
    tenant = subject.tenant
    agent_ids = list(tenant.agents.values_list("pk", flat=True))
    documents = Document.objects.none()
    if subject.user is not None:
        documents = Document.objects.filter(tenant=tenant, created_by=subject.user)
    return Selection(
        tenant=tenant,
        runs=Run.objects.filter(owner_q),
        threads=Thread.objects.filter(owner_q),
        facts=CoreFact.objects.filter(owner_q),
        candidates=CoreCandidate.objects.filter(owner_q),
        recall_entries=RecallEntry.objects.filter(owner_q),
        documents=documents,
        memory_ops=MemoryOp.objects.filter(owner_q),
        recall_scope_keys=[
            recall_scope(tenant_id=tenant.pk, agent_id=agent_id, owner_id=getattr(subject.user, "pk", None),
                         end_user=subject.end_user).key
            for agent_id in agent_ids
        ],
        owner_keeps_runs=False,
    )


def selection_for_thread(thread: Thread) -> Selection:
    """A conversation: its runs and what came from them. Confirmed facts stay (a person
    confirmed them) but lose their link to the run."""
    return Selection(
        tenant=thread.tenant,
        runs=Run.objects.filter(tenant_id=thread.tenant_id, thread_id=thread.pk),
        threads=Thread.objects.filter(tenant_id=thread.tenant_id, pk=thread.pk),
        recall_entries=RecallEntry.objects.filter(tenant_id=thread.tenant_id, thread_id=thread.pk),
        memory_ops=MemoryOp.objects.filter(tenant_id=thread.tenant_id, thread_id=thread.pk),
    )


def selection_for_retention(*, tenant: Tenant, now=None) -> Selection | None:
    """Runs and recall entries older than the school's retention period, and threads idle
    that long (their summaries digest those runs). Archived documents are the school's
    knowledge and stay; confirmed facts stay."""
    days = tenant.retention_days
    if not days:
        return None
    cutoff = (now or timezone.now()) - timedelta(days=days)
    return Selection(
        tenant=tenant,
        runs=Run.objects.filter(tenant=tenant, created_at__lt=cutoff).exclude(status=Run.Status.RUNNING),
        threads=Thread.objects.filter(tenant=tenant, updated_at__lt=cutoff).exclude(
            runs__created_at__gte=cutoff).exclude(runs__status=Run.Status.RUNNING),
        recall_entries=RecallEntry.objects.filter(tenant=tenant, happened_at__lt=cutoff),
        drop_archived_documents=False,
        drop_run_memory_ops=False,
    )


# --- how ---------------------------------------------------------------------------------


class _Pass:
    """One pass over a selection, adding what it removes to `counts`."""

    def __init__(self, selection: Selection, counts: Counter):
        self.selection = selection
        self.counts = counts
        # ids a stored context may name in a section: knowledge-base chunks (any owner's
        # prompt) and the owner's own runs, recall entries and facts
        self.erased_chunks: set[str] = set()
        self.erased_private: set[str] = set()
        self.logged: dict[type, list[str]] = {}

    def run(self) -> int:
        before = sum(self.counts.values())
        while True:
            batch = list(self.selection.runs.order_by("pk").values_list("pk", flat=True)[:RUN_BATCH])
            if not batch:
                break
            with transaction.atomic():
                self._remove_runs(batch)
        with transaction.atomic():
            self._remove_owner_rows()
        with transaction.atomic():
            self._redact_contexts()
            self._remove_admin_log()
        return sum(self.counts.values()) - before

    def _log(self, model, ids) -> None:
        self.logged.setdefault(model, []).extend(str(pk) for pk in ids)

    def _remove_runs(self, run_ids: list[str]) -> None:
        sel, counts = self.selection, self.counts
        candidates = CoreCandidate.objects.filter(source_run_id__in=run_ids)
        self._log(CoreCandidate, candidates.values_list("pk", flat=True))
        counts["candidates"] += candidates.delete()[0]
        if sel.facts is None:
            counts["facts_unlinked"] += CoreFact.objects.filter(source_run_id__in=run_ids).update(source_run=None)
        counts["extractions"] += CoreExtraction.objects.filter(run_id__in=run_ids).delete()[0]
        self._remove_recall_entries(RecallEntry.objects.filter(run_id__in=run_ids))
        if sel.drop_archived_documents:
            self._remove_documents(Document.objects.filter(source_run_id__in=run_ids))
        if sel.drop_run_memory_ops:
            counts["memory_ops"] += MemoryOp.objects.filter(run_id__in=run_ids).delete()[0]
        self._remove_queue_items(run_ids)
        # A run that continued from an erased one carries its output in its prompt (only
        # the owner continues their own runs: nothing to do when all of those go).
        continuations = Run.objects.none()
        if sel.owner_keeps_runs:
            continuations = Run.objects.filter(continued_from_id__in=run_ids).exclude(pk__in=run_ids)
        for run in continuations.only("pk", "context"):
            if (run.context or {}).get("messages"):
                Run.objects.filter(pk=run.pk).update(context={**run.context, "messages": []})
                counts["contexts_redacted"] += 1
        self._log(Run, run_ids)
        self.erased_private.update(run_ids)
        counts["runs"] += Run.objects.filter(pk__in=run_ids).delete()[1].get(Run._meta.label, 0)

    def _remove_owner_rows(self) -> None:
        sel, counts = self.selection, self.counts
        if sel.facts is not None:
            ids = list(sel.facts.values_list("pk", flat=True))
            self._log(CoreFact, ids)
            self.erased_private.update(ids)
            counts["facts"] += CoreFact.objects.filter(pk__in=ids).delete()[0]
        if sel.candidates is not None:
            self._log(CoreCandidate, sel.candidates.values_list("pk", flat=True))
            counts["candidates"] += sel.candidates.delete()[0]
        for key in sel.recall_scope_keys:
            scope = SearchScope.objects.filter(key=key).first()
            if scope is None:
                continue
            counts["index_postings"] += Posting.objects.filter(scope=scope).count()
            counts["index_documents"] += SearchDoc.objects.filter(scope=scope).count()
            counts["index_scopes"] += 1
            scope.delete()
        if sel.recall_entries is not None:
            self._remove_recall_entries(sel.recall_entries)
        if sel.documents is not None:
            self._remove_documents(sel.documents)
        if sel.memory_ops is not None:
            counts["memory_ops"] += sel.memory_ops.delete()[0]
        thread_ids = list(sel.threads.values_list("pk", flat=True))
        self._log(Thread, thread_ids)
        counts["threads"] += Thread.objects.filter(pk__in=thread_ids).delete()[1].get(Thread._meta.label, 0)

    def _remove_recall_entries(self, entries: QuerySet) -> None:
        by_scope: dict[str, list[str]] = {}
        refs = []
        for entry in entries.only("pk", "tenant_id", "agent_id", "owner_id", "end_user", "run_ref"):
            by_scope.setdefault(recall_scope_of(entry).key, []).append(entry.pk)
            refs.append(entry.run_ref)
        for key, ids in by_scope.items():
            docs = SearchDoc.objects.filter(scope__key=key, ref__in=ids)
            self.counts["index_postings"] += Posting.objects.filter(doc__in=docs).count()
            self.counts["index_documents"] += index_remove(scope_key=key, refs=ids)
        ids = [pk for group in by_scope.values() for pk in group]
        self._log(RecallEntry, ids)
        self.erased_private.update(refs)
        self.counts["recall_entries"] += RecallEntry.objects.filter(pk__in=ids).delete()[0]

    def _remove_documents(self, documents: QuerySet) -> None:
        for document in documents.select_related(None):
            chunk_ids = list(Chunk.objects.filter(document=document).values_list("pk", flat=True))
            docs = SearchDoc.objects.filter(scope__key=kb_scope(tenant_id=document.tenant_id,
                                                                agent_id=document.agent_id).key, ref__in=chunk_ids)
            self.counts["index_postings"] += Posting.objects.filter(doc__in=docs).count()
            self.counts["index_documents"] += docs.count()
            self.counts["chunks"] += len(chunk_ids)
            self.counts["documents"] += 1
            self.erased_chunks.update(chunk_ids)
            self._log(Document, [document.pk])
            document_remove(document=document)

    def _remove_queue_items(self, run_ids: list[str]) -> None:
        wanted = set(run_ids)
        # The ORM broker's waiting jobs: payloads are signed pickles, so they are read here.
        # (With the Redis broker a waiting job stays queued and does nothing when it runs:
        # its run is gone.)
        for item in OrmQ.objects.all().only("pk", "payload"):
            task = item.task
            if task.get("func") == MEMORY_JOB and set(map(str, task.get("args") or ())) & wanted:
                self.counts["queue_items"] += OrmQ.objects.filter(pk=item.pk).delete()[0]
        # Their results: the runner and the reconciler name each job "memory <run id>[ <note>]".
        results = [pk for pk, name in Task.objects.filter(func=MEMORY_JOB).values_list("pk", "name")
                   if name.startswith("memory ") and name.split(" ")[1] in wanted]
        if results:
            self.counts["task_results"] += Task.objects.filter(pk__in=results).delete()[0]

    def _redact_contexts(self) -> None:
        """Cut erased content out of the stored prompts of runs that remain (another
        teacher's run that was shown an erased document's passage, say)."""
        items = self.erased_chunks | (self.erased_private if self.selection.owner_keeps_runs else set())
        if not items:
            return
        ordered = sorted(items)
        texts = Run.objects.filter(tenant=self.selection.tenant).annotate(context_text=Cast("context", TextField()))
        seen: set[str] = set()
        for start in range(0, len(ordered), 100):
            mention = Q()
            for item in ordered[start:start + 100]:
                mention |= Q(context_text__contains=item)
            for run in texts.filter(mention).only("pk", "context"):
                if run.pk in seen:
                    continue
                seen.add(run.pk)
                redacted = context_redacted(run.context, items)
                if redacted is not None:
                    Run.objects.filter(pk=run.pk).update(context=redacted)
                    self.counts["contexts_redacted"] += 1
        self.erased_chunks, self.erased_private = set(), set()

    def _remove_admin_log(self) -> None:
        # The admin's history names the rows it changed (a fact's text is its object_repr).
        for model, ids in self.logged.items():
            if not ids:
                continue
            content_type = ContentType.objects.get_for_model(model)
            for start in range(0, len(ids), 500):
                self.counts["admin_log_entries"] += LogEntry.objects.filter(
                    content_type=content_type, object_id__in=ids[start:start + 500]).delete()[0]
        self.logged = {}


def context_redacted(context: dict, items: set[str]) -> dict | None:
    """A stored context with each section that showed one of `items` emptied, and its
    text cut out of the messages sent; None when nothing in it refers to them."""
    if not isinstance(context, dict):
        return None
    cut, sections = [], []
    for section in context.get("sections") or []:
        if isinstance(section, dict) and set(map(str, section.get("items") or ())) & items:
            cut.append(section.get("text") or "")
            section = {**section, "text": "", "items": [], "redacted": True}
        sections.append(section)
    if not cut:
        return None
    messages = []
    for message in context.get("messages") or []:
        content = message.get("content", "") if isinstance(message, dict) else ""
        for text in cut:
            if text:
                content = content.replace(text, REDACTED)
        messages.append({**message, "content": content} if isinstance(message, dict) else message)
    return {**context, "sections": sections, "messages": messages}


def _remove(selection: Selection) -> Counter:
    counts = Counter({kind: 0 for kind in KINDS})
    for _attempt in range(MAX_PASSES):
        if not _Pass(selection, counts).run():
            break
    return counts


def selection_erase(*, selection: Selection, subject_kind: str, identifier: str, via: str,
                    requested_by=None, dry_run: bool = False, keep_empty: bool = True) -> dict:
    """Remove what `selection` holds and return the receipt as a dict (stored unless a dry
    run, or unless nothing was removed and `keep_empty` is off: the hourly retention sweep)."""
    started = timezone.now()
    if dry_run:
        with transaction.atomic():
            counts = _remove(selection)
            transaction.set_rollback(True)
    else:
        counts = _remove(selection)
    receipt = ErasureReceipt(
        tenant=selection.tenant,
        subject_kind=subject_kind,
        subject_hash=subject_hash(tenant_id=selection.tenant.pk, kind=subject_kind, identifier=identifier),
        requested_via=via,
        requested_by=requested_by,
        counts={kind: counts[kind] for kind in KINDS},
        started_at=started,
        finished_at=timezone.now(),
    )
    if not dry_run and (keep_empty or receipt.total):
        receipt.save()
        sqlite_reclaim()
        log.info("erasure %s (%s) in %s: %d rows", receipt.pk, subject_kind, selection.tenant.slug, receipt.total)
    return receipt_as_dict(receipt, dry_run=dry_run)


def owner_erase(*, subject: Subject, via: str, requested_by=None, dry_run: bool = False) -> dict:
    """Erase one teacher's or end user's memory from every layer (see the module docstring).
    The teacher's login account itself stays: removing it is the school's user management."""
    return selection_erase(selection=selection_for_owner(subject), subject_kind=subject.kind,
                           identifier=subject.identifier, via=via, requested_by=requested_by, dry_run=dry_run)


def thread_delete(*, actor, thread_id: str, via: str, dry_run: bool = False) -> dict:
    """Delete one of the actor's conversations and everything derived from its runs;
    confirmed facts stay, unlinked from the run (the receipt's `facts_unlinked`)."""
    thread = thread_get_for_actor(actor=actor, thread_id=thread_id)
    return selection_erase(selection=selection_for_thread(thread), subject_kind=ErasureReceipt.SubjectKind.THREAD,
                           identifier=thread.pk, via=via, requested_by=actor.user, dry_run=dry_run)


def counts_labelled(counts: dict) -> list[tuple[str, int]]:
    """(label, count) for every kind with a count, in KINDS order: what the pages show."""
    return [(KIND_LABELS[kind], counts[kind]) for kind in KINDS if counts.get(kind)]


def receipt_as_dict(receipt: ErasureReceipt, *, dry_run: bool = False) -> dict:
    return {
        "receipt_id": None if dry_run else receipt.pk,
        "dry_run": dry_run,
        "tenant": receipt.tenant.slug,
        "subject_kind": receipt.subject_kind,
        "subject_hash": receipt.subject_hash,
        "requested_via": receipt.requested_via,
        "requested_by": receipt.requested_by.username if receipt.requested_by_id else None,
        "started_at": receipt.started_at.isoformat(),
        "finished_at": receipt.finished_at.isoformat(),
        "counts": dict(receipt.counts),
        "total": receipt.total,
    }


#: the tables an erasure deletes from (for PostgreSQL's VACUUM)
ERASED_MODELS = (Run, Thread, CoreFact, CoreCandidate, CoreExtraction, RecallEntry, SearchScope, SearchDoc, Posting,
                 Document, Chunk, MemoryOp, OrmQ, Task, LogEntry)


def postgres_vacuum(*, full: bool = False) -> list[str]:
    """PostgreSQL keeps deleted rows as dead tuples until VACUUM. Plain VACUUM (safe while
    serving) frees them for reuse; VACUUM FULL (locks each table while it rewrites it)
    writes the live rows to new files. Returns the tables vacuumed; a no-op elsewhere."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return []
    tables = [model._meta.db_table for model in ERASED_MODELS]
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"VACUUM {'FULL ' if full else ''}{connection.ops.quote_name(table)}")
    return tables


def sqlite_reclaim() -> None:
    """Make SQLite drop erased bytes from the write-ahead log too (secure_delete already
    zeroes freed pages; the WAL keeps old page images until a checkpoint)."""
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        return  # a checkpoint can't run inside a transaction; SQLite checkpoints on its own later
    try:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except OperationalError:
        # Readers still hold old frames: the next automatic checkpoint overwrites them.
        log.warning("WAL checkpoint after an erasure was busy; SQLite will checkpoint later")
