"""Export: everything the system holds about one owner as one JSON document.

The document is versioned (`schema`, `schema_version`); its `recall` list holds the
entries in the recall log format (recall/logformat.py), so writing them one per line
gives a file `manage.py recall_import` reads back. Stored prompts (Run.context) are left
out: they hold the school's knowledge-base passages, which are not the owner's data.
"""

import json

from django.db.models import Q
from django.utils import timezone

from agents.models import Run
from corememory.models import CoreCandidate, CoreFact
from knowledge.models import Document
from privacy.models import ErasureReceipt
from privacy.services import Subject
from recall.logformat import entry_line
from recall.models import RecallEntry
from threads.models import Thread

SCHEMA = "teaching-assistant-memory-export"
SCHEMA_VERSION = 1


def _time(value):
    return timezone.localtime(value).isoformat() if value else None


def _run(run: Run) -> dict:
    return {
        "id": run.pk, "agent_id": run.agent_id, "input": run.input, "output": run.output, "status": run.status,
        "error_code": run.error_code, "created_at": _time(run.created_at), "finished_at": _time(run.finished_at),
        "continued_from": run.continued_from_id,
    }


def _fact(fact, **extra) -> dict:
    return {"id": fact.pk, "agent_id": fact.agent_id, "text": fact.text, "source_run": fact.source_run_id,
            "created_at": _time(fact.created_at), **extra}


def owner_export(*, subject: Subject) -> dict:
    owner_q = subject.owner_q()
    runs_by_thread: dict[str, list] = {}
    for run in Run.objects.filter(owner_q).order_by("created_at", "pk"):
        runs_by_thread.setdefault(run.thread_id, []).append(_run(run))
    threads = [
        {
            "id": thread.pk, "agent_id": thread.agent_id, "title": thread.title, "status": thread.status,
            "rolling_summary": thread.rolling_summary, "created_at": _time(thread.created_at),
            "updated_at": _time(thread.updated_at), "runs": runs_by_thread.get(thread.pk, []),
        }
        for thread in Thread.objects.filter(owner_q).order_by("created_at", "pk")
    ]
    # What they uploaded, and outputs of their runs archived into the knowledge base.
    mine = Q(source_run__in=Run.objects.filter(owner_q).values("pk"))
    if subject.user is not None:
        mine |= Q(created_by=subject.user)
    documents = Document.objects.filter(mine, tenant=subject.tenant)
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "exported_at": _time(timezone.now()),
        "tenant": subject.tenant.slug,
        "subject": {"kind": subject.kind,
                    "teacher" if subject.kind == ErasureReceipt.SubjectKind.TEACHER else "end_user": subject.identifier},
        "threads": threads,
        "facts": [_fact(fact, origin=fact.origin, confirmed_at=_time(fact.confirmed_at))
                  for fact in CoreFact.objects.filter(owner_q).order_by("created_at", "pk")],
        "candidates": [_fact(candidate, confidence=candidate.confidence, seen_count=candidate.seen_count)
                       for candidate in CoreCandidate.objects.filter(owner_q).order_by("created_at", "pk")],
        "recall": [json.loads(entry_line(entry)) for entry in
                   RecallEntry.objects.filter(owner_q).select_related("tenant", "owner").order_by("happened_at", "pk")],
        "documents": [
            {"id": doc.pk, "agent_id": doc.agent_id, "title": doc.title, "source": doc.source, "text": doc.text,
             "source_run": doc.source_run_id, "created_at": _time(doc.created_at)}
            for doc in documents.order_by("created_at", "pk")
        ],
    }
