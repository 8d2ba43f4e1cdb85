from recall.models import RecallEntry
from recall.scopes import recall_scope_for_actor
from search.engine import search


def _owned(entry, *, actor, agent) -> bool:
    return (entry.tenant_id, entry.agent_id, entry.owner_id, entry.end_user) == (
        actor.tenant.pk, agent.pk, actor.owner_id, actor.end_user)


def recall_search(*, actor, agent, query: str, limit: int, min_score: float, exclude_run_ids=(),
                  dense: bool | None = None) -> list[tuple]:
    """The actor's own entries for `agent` that best match `query`: [(entry, score)], best
    first, each with a relevance score (search/relevance.py) above `min_score`. `dense`
    None follows the RECALL_DENSE setting."""
    excluded = set(exclude_run_ids)
    # Both lookups below go by a unique key and check the owner in Python: with the owner
    # in the WHERE clause, SQLite (without ANALYZE statistics) walks the owner's whole
    # scope index, 10,000 entries, instead of the few rows the key names (5 ms a lookup).
    # Left out before ranking, not after: a rank is one of the score's features.
    # Only (agent, run_ref) in the WHERE clause: with the tenant beside them SQLite took the
    # (tenant, agent, ...) scope index and walked all 10,000 of the agent's entries (3.6 ms).
    excluded_refs = [pk for pk, tenant_id, owner_id, end_user in
                     RecallEntry.objects.filter(agent=agent, run_ref__in=excluded).order_by()
                     .values_list("pk", "tenant_id", "owner_id", "end_user")
                     if (tenant_id, owner_id, end_user) == (actor.tenant.pk, actor.owner_id, actor.end_user)] \
        if excluded else []
    hits = search(scope_key=recall_scope_for_actor(actor=actor, agent=agent).key, query=query,
                  limit=limit + len(excluded), min_score=min_score, dense=dense, exclude_refs=excluded_refs)
    if not hits:
        return []
    # The scope already is this owner's; checking the owner again costs nothing and keeps
    # the rule "every selector filters by tenant and owner" true here too.
    entries = RecallEntry.objects.order_by().in_bulk([hit.ref for hit in hits])
    found = []
    for hit in hits:
        entry = entries.get(hit.ref)
        if entry is None or not _owned(entry, actor=actor, agent=agent) or entry.run_ref in excluded:
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
