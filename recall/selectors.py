from core import sql
from recall.models import RecallEntry
from recall.scopes import recall_scope_for_actor
from search.engine import search

# Every column: callers get whole entries, as from the ORM.
_ENTRY = sql.Columns(RecallEntry)
_EXCLUDED = sql.Columns(RecallEntry, "id", "tenant", "agent", "owner", "end_user")


def _owned(entry, *, actor, agent) -> bool:
    return entry.agent_id == agent.pk and actor.owns(entry)


def _entries_of_runs(*, agent, run_ids) -> list[RecallEntry]:
    """`agent`'s entries recording `run_ids` (only the owner columns read).

    By (agent, run_ref) alone, the unique key: with the tenant or the owner beside them in
    the WHERE clause, SQLite (without ANALYZE statistics) took the (tenant, agent, ...) scope
    index and walked all 10,000 of the agent's entries (3.6 ms); the caller checks the owner."""
    rows = sql.fetch(f'SELECT {_EXCLUDED.select()} FROM "{RecallEntry._meta.db_table}" '
                     f'WHERE "agent_id" = %s AND "run_ref" IN ({sql.placeholders(len(run_ids))})',
                     [agent.pk, *run_ids])
    return _EXCLUDED.instances(rows)


def _entries_by_id(ids) -> dict[str, RecallEntry]:
    """Entries by primary key (the caller checks the owner: the scope already is the owner's)."""
    rows = sql.fetch(f'SELECT {_ENTRY.select()} FROM "{RecallEntry._meta.db_table}" '
                     f'WHERE "id" IN ({sql.placeholders(len(ids))})', list(ids))
    return {entry.pk: entry for entry in _ENTRY.instances(rows)}


def recall_search(*, actor, agent, query: str, limit: int, min_score: float, exclude_run_ids=(),
                  dense: bool | None = None) -> list[tuple]:
    """The actor's own entries for `agent` that best match `query`: [(entry, score)], best
    first, each with a relevance score (search/relevance.py) above `min_score`. `dense`
    None follows the RECALL_DENSE setting. Both reads are hand-written SQL (core/sql.py):
    this runs before every run."""
    excluded = set(exclude_run_ids)
    # Both lookups below go by a unique key and check the owner in Python: with the owner
    # in the WHERE clause, SQLite (without ANALYZE statistics) walks the owner's whole
    # scope index, 10,000 entries, instead of the few rows the key names (5 ms a lookup).
    # Left out before ranking, not after: a rank is one of the score's features.
    excluded_refs = [entry.pk for entry in _entries_of_runs(agent=agent, run_ids=sorted(excluded))
                     if _owned(entry, actor=actor, agent=agent)] if excluded else []
    hits = search(scope_key=recall_scope_for_actor(actor=actor, agent=agent).key, query=query,
                  limit=limit + len(excluded), min_score=min_score, dense=dense, exclude_refs=excluded_refs)
    if not hits:
        return []
    # The scope already is this owner's; checking the owner again costs nothing and keeps
    # the rule "every selector filters by tenant and owner" true here too.
    entries = _entries_by_id([hit.ref for hit in hits])
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
