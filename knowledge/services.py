"""L4 writes: create documents (text or files), delete them, archive run outputs."""

import logging
from pathlib import PurePath

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import translation
from django.utils.translation import gettext as _

from core import redline
from core.errors import AppError
from core.text import clean_text, validate_text
from agents.models import Run
from core.tokens import count_tokens
from knowledge.chunking import chunk_text
from knowledge.models import Chunk, Document
from knowledge.parsers import extract_text
from knowledge.scopes import kb_scope
from search.services import index_add_many, index_remove
from search.vectors import passage_vectors

log = logging.getLogger(__name__)

TITLE_CHARS = 200


def _clean_title(title: str, fallback: str) -> str:
    title = " ".join((title or "").split()) or " ".join(fallback.split())[:40]
    return title[:TITLE_CHARS]


def document_text_clean(text: str) -> str:
    # Text we extracted (a file, a run's output): what no database can store is dropped.
    text = clean_text(text).strip()
    if not text:
        raise AppError("empty_document", "the document has no text", status=422)
    if len(text) > settings.KB_MAX_DOCUMENT_CHARS:
        raise AppError("document_too_long", f"a document may hold at most {settings.KB_MAX_DOCUMENT_CHARS} characters",
                       status=422)
    return text


def document_text_from_file(*, filename: str, data: bytes) -> tuple[str, str, str]:
    """(text, source, default title) of an uploaded file, or an AppError with a stable code."""
    if len(data) > settings.KB_MAX_UPLOAD_BYTES:
        raise AppError("file_too_large", f"files may be at most {settings.KB_MAX_UPLOAD_BYTES} bytes", status=413)
    name = PurePath(filename or "").name[:200]
    return document_text_clean(extract_text(name, data)), f"file:{name}", PurePath(name).stem


def document_create(*, tenant, agent, title: str, text: str, source: str = "text", created_by=None,
                    source_run: Run | None = None) -> Document:
    """Store a document, chunk it by tokens with overlap and index the chunks, in one transaction."""
    if agent.tenant_id != tenant.pk:
        raise AppError("not_found", "agent not found", status=404)
    text = document_text_clean(validate_text(text, field="text"))
    title = _clean_title(validate_text(title or "", field="title"), text)
    pieces = chunk_text(text, size=settings.KB_CHUNK_TOKENS, overlap=settings.KB_CHUNK_OVERLAP)
    # One model call per chunk for its dense vector, before the transaction opens.
    vectors = passage_vectors([Chunk.text_for_search(title, piece) for piece in pieces])
    with transaction.atomic():
        document = Document.objects.create(
            tenant=tenant, agent=agent, title=title, source=source[:300], text=text, created_by=created_by,
            source_run=source_run, chunk_count=len(pieces), token_count=count_tokens(text),
        )
        chunks = Chunk.objects.bulk_create(
            [Chunk(tenant=tenant, agent=agent, document=document, position=i, text=piece, tokens=count_tokens(piece))
             for i, piece in enumerate(pieces)]
        )
        index_add_many(
            scope=kb_scope(tenant_id=tenant.pk, agent_id=agent.pk),
            items=[(chunk.pk, Chunk.text_for_search(title, chunk.text)) for chunk in chunks],
            vectors=vectors,
        )
    return document


def document_create_from_file(*, tenant, agent, filename: str, data: bytes, title: str = "",
                              created_by=None) -> Document:
    text, source, default_title = document_text_from_file(filename=filename, data=data)
    return document_create(tenant=tenant, agent=agent, title=title or default_title, text=text, source=source,
                           created_by=created_by)


def document_delete(*, actor, document: Document) -> None:
    """Remove a document with its chunks and their index entries. Teachers may delete
    what they uploaded; school admins and the school's API key, any of the school's."""
    if document.tenant_id != actor.tenant.pk:
        raise AppError("not_found", "document not found", status=404)
    user = actor.user
    if user is not None and not getattr(user, "is_school_admin", False) and document.created_by_id != user.pk:
        raise AppError("not_document_owner", "only the teacher who uploaded a document or a school admin may delete it",
                       status=403)
    document_remove(document=document)


def document_remove(*, document: Document) -> None:
    """The deletion itself, for callers that have checked permission (the admin)."""
    with transaction.atomic():
        refs = list(Chunk.objects.filter(document=document).values_list("pk", flat=True))
        index_remove(scope_key=kb_scope(tenant_id=document.tenant_id, agent_id=document.agent_id).key, refs=refs)
        document.delete()


ARCHIVE_TITLE_CHARS = 40


def document_archive_run(*, run: Run) -> Document | None:
    """Agent opt-in (archive_outputs): a completed run's output becomes a document, once."""
    agent = run.agent
    if not agent.archive_outputs or run.status != Run.Status.COMPLETED or not run.output.strip():
        return None
    existing = Document.objects.filter(source_run=run).first()
    if existing is not None:
        return existing
    # The opt-in publishes a teacher's output to everyone using this agent: what red line 2
    # refuses as a fact (ID numbers, phone numbers, grades, health) is not archived either.

    verdict = redline.check(run.output + "\n" + run.input)
    if verdict:
        log.info("run %s not archived: red line 2 (%s)", run.pk, ",".join(verdict.kinds))
        return None
    with translation.override("en" if agent.language == "en" else settings.LANGUAGE_CODE):
        title = _("运行产物：%(input)s") % {"input": " ".join(run.input.split())[:ARCHIVE_TITLE_CHARS]}
    try:
        return document_create(tenant=run.tenant, agent=agent, title=clean_text(title), text=clean_text(run.output),
                               source=f"run:{run.pk}", created_by=run.owner, source_run=run)
    except IntegrityError:
        return Document.objects.filter(source_run=run).first()


def kb_index_sources(*, tenant=None):
    """(scope, [(chunk id, text)]) for every agent's knowledge base (of one school, or all):
    what `manage.py reindex` brings the index in line with."""
    chunks = Chunk.objects.select_related("document").order_by("tenant_id", "agent_id", "document_id", "position")
    if tenant is not None:
        chunks = chunks.filter(tenant=tenant)
    current, items = None, []
    for chunk in chunks.iterator():
        scope = kb_scope(tenant_id=chunk.tenant_id, agent_id=chunk.agent_id)
        if current is not None and scope.key != current.key:
            yield current, items
            items = []
        current = scope
        items.append((chunk.pk, Chunk.text_for_search(chunk.document.title, chunk.text)))
    if current is not None:
        yield current, items
