from core import sql
from core.errors import NotFound
from knowledge.models import Chunk, Document
from knowledge.scopes import kb_scope
from search.engine import search


def document_get_for_tenant(*, tenant, document_id: str) -> Document:
    document = Document.objects.filter(tenant=tenant, pk=document_id).first()
    if document is None:
        raise NotFound("document")
    return document


def documents_for_agent(*, tenant, agent):
    return Document.objects.filter(tenant=tenant, agent=agent).order_by("-created_at")


_CHUNK = sql.Columns(Chunk)
# The passage and its document's title and source are shown; the document's own text
# (the whole upload) is not, so it stays in the database.
_DOCUMENT = sql.Columns(Document, exclude=("text",))
_EXCLUDED = sql.Columns(Chunk, "id", "tenant", "agent")
_FROM = (f'FROM "{Chunk._meta.db_table}" c INNER JOIN "{Document._meta.db_table}" d '
         'ON d."id" = c."document_id"')


def _of_agent(chunk, agent) -> bool:
    """Whether `chunk` is of `agent`'s knowledge base (school and agent)."""
    return (chunk.tenant_id, chunk.agent_id) == (agent.tenant_id, agent.pk)


def _chunks_of_runs(run_ids) -> list[Chunk]:
    """The chunks of the documents archived from `run_ids` (only their school and agent read).
    By the document's source run alone, a unique key: with the school and agent in the
    WHERE clause, SQLite (without ANALYZE statistics) walks every chunk of the school
    instead of the few rows named; the caller checks them."""
    rows = sql.fetch(f'SELECT {_EXCLUDED.select("c")} {_FROM} '
                     f'WHERE d."source_run_id" IN ({sql.placeholders(len(run_ids))})', list(run_ids))
    return _EXCLUDED.instances(rows)


def _chunks_by_id(ids) -> dict[str, Chunk]:
    """Chunks by primary key, each with its document (the caller checks school and agent)."""
    rows = sql.fetch(f'SELECT {_CHUNK.select("c")}, {_DOCUMENT.select("d")} {_FROM} '
                     f'WHERE c."id" IN ({sql.placeholders(len(ids))})', list(ids))
    chunks = _CHUNK.instances(rows)
    for chunk, document in zip(chunks, _DOCUMENT.instances(rows, start=len(_CHUNK))):
        chunk.document = document
    return {chunk.pk: chunk for chunk in chunks}


def kb_search(*, agent, query: str, limit: int, min_score: float, exclude_run_ids=()) -> list[tuple]:
    """[(chunk, score)] of `agent`'s knowledge base, best first, score above min_score;
    chunks of documents archived from `exclude_run_ids` are left out. Both reads are
    hand-written SQL (core/sql.py): this runs before every run."""
    excluded = set(exclude_run_ids)
    # Both lookups go by a unique key (a document's source run, a chunk's id) and check
    # the school and agent in Python. Left out before ranking, not after: a rank is one
    # of the score's features.
    excluded_refs = [chunk.pk for chunk in _chunks_of_runs(sorted(excluded)) if _of_agent(chunk, agent)] \
        if excluded else []
    hits = search(scope_key=kb_scope(tenant_id=agent.tenant_id, agent_id=agent.pk).key, query=query,
                  limit=limit, min_score=min_score, exclude_refs=excluded_refs)
    if not hits:
        return []
    chunks = _chunks_by_id([hit.ref for hit in hits])
    found = []
    for hit in hits:
        chunk = chunks.get(hit.ref)
        if chunk is None or not _of_agent(chunk, agent):
            continue
        if chunk.document.source_run_id and chunk.document.source_run_id in excluded:
            continue
        found.append((chunk, hit.score))
    return found
