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
    # Left out before ranking, not after: a rank is one of the score's features.
    excluded_refs = list(Chunk.objects.filter(tenant_id=agent.tenant_id, agent=agent,
                                              document__source_run_id__in=excluded)
                         .values_list("pk", flat=True)) if excluded else []
    hits = search(scope_key=kb_scope(tenant_id=agent.tenant_id, agent_id=agent.pk).key, query=query,
                  limit=limit, min_score=min_score, exclude_refs=excluded_refs)
    if not hits:
        return []
    chunks = (
        Chunk.objects.filter(tenant_id=agent.tenant_id, agent=agent)
        .select_related("document")
        .in_bulk([hit.ref for hit in hits])
    )
    found = []
    for hit in hits:
        chunk = chunks.get(hit.ref)
        if chunk is None or (chunk.document.source_run_id and chunk.document.source_run_id in excluded):
            continue
        found.append((chunk, hit.score))
    return found
