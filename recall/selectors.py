from recall.models import RecallEntry
from recall.scopes import recall_scope_for_actor
from search.engine import search


def recall_search(*, actor, agent, query: str, limit: int, min_score: float, exclude_run_ids=(),
                  dense: bool | None = None) -> list[tuple]:
    """The actor's own entries for `agent` that best match `query`: [(entry, score)], best
    first, each with a relevance score (search/relevance.py) above `min_score`. `dense`
    None follows the RECALL_DENSE setting."""
    excluded = set(exclude_run_ids)
    # Left out before ranking, not after: a rank is one of the score's features.
    excluded_refs = list(RecallEntry.objects.filter(actor.owner_q(), agent=agent, run_ref__in=excluded)
                         .values_list("pk", flat=True)) if excluded else []
    hits = search(scope_key=recall_scope_for_actor(actor=actor, agent=agent).key, query=query,
                  limit=limit + len(excluded), min_score=min_score, dense=dense, exclude_refs=excluded_refs)
    if not hits:
        return []
    # The scope already is this owner's; filtering again by owner costs nothing and
    # keeps the rule "every selector filters by tenant and owner" true here too.
    entries = RecallEntry.objects.filter(actor.owner_q(), agent=agent).in_bulk([hit.ref for hit in hits])
    found = []
    for hit in hits:
        entry = entries.get(hit.ref)
        if entry is None or entry.run_ref in excluded:
            continue
        found.append((entry, hit.score))
        if len(found) == limit:
            break
    return found


def recall_entries_for_export(*, tenant, agent=None, owner=None, end_user: str | None = None):
    entries = RecallEntry.objects.filter(tenant=tenant).select_related("agent", "owner", "thread")
    if agent is not None:
        entries = entries.filter(agent=agent)
    if owner is not None:
        entries = entries.filter(owner=owner)
    if end_user is not None:
        entries = entries.filter(end_user=end_user)
    return entries.order_by("happened_at", "created_at")
