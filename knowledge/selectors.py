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


def kb_search(*, agent, query: str, limit: int, min_score: float, exclude_run_ids=()) -> list[tuple]:
    """[(chunk, score)] of `agent`'s knowledge base, best first, score above min_score;
    chunks of documents archived from `exclude_run_ids` are left out."""
    excluded = set(exclude_run_ids)
    # Both lookups below go by a unique key (a document's source run, a chunk's id) and
    # check the school and agent in Python: with them in the WHERE clause, SQLite (without
    # ANALYZE statistics) walks every chunk of the school instead of the few rows named.
    # Left out before ranking, not after: a rank is one of the score's features.
    excluded_refs = [pk for pk, tenant_id, agent_id in
                     Chunk.objects.filter(document__source_run_id__in=excluded).order_by()
                     .values_list("pk", "tenant_id", "agent_id")
                     if (tenant_id, agent_id) == (agent.tenant_id, agent.pk)] if excluded else []
    hits = search(scope_key=kb_scope(tenant_id=agent.tenant_id, agent_id=agent.pk).key, query=query,
                  limit=limit, min_score=min_score, exclude_refs=excluded_refs)
    if not hits:
        return []
    # The passage and its document's title and source are shown; the document's own
    # text (the whole upload) is not, so it stays in the database.
    chunks = Chunk.objects.order_by().select_related("document").defer("document__text").in_bulk(
        [hit.ref for hit in hits])
    found = []
    for hit in hits:
        chunk = chunks.get(hit.ref)
        if chunk is None or (chunk.tenant_id, chunk.agent_id) != (agent.tenant_id, agent.pk):
            continue
        if chunk.document.source_run_id and chunk.document.source_run_id in excluded:
            continue
        found.append((chunk, hit.score))
    return found
