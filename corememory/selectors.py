"""Reads of L2 core memory. Every one filters by school and owner first: another
school's or another teacher's fact is indistinguishable from a missing one."""

from core import sql
from core.errors import NotFound
from corememory.models import CoreCandidate, CoreFact

# Provenance needs a source run's thread, time and request, never its bulk.
_SOURCE_RUN_BULK = ("source_run__output", "source_run__context")


def facts_for_actor(*, actor, agent):
    """Confirmed facts of this owner for `agent`, most recently used first."""
    return (CoreFact.objects.filter(actor.owner_q(), agent=agent)
            .select_related("confirmed_by", "source_run").defer(*_SOURCE_RUN_BULK)
            .order_by("-last_used", "-created_at"))


def facts_for_injection(*, actor, agent) -> list[tuple[str, str]]:
    """(id, text) of this owner's confirmed facts, most recently used first. Read on every
    run: hand-written SQL (core/sql.py)."""
    owner, params = sql.where_equal({**actor.owner_columns(), "agent_id": agent.pk})
    return sql.fetch(f'SELECT "id", "text" FROM "{CoreFact._meta.db_table}" WHERE {owner} '
                     'ORDER BY "last_used" DESC, "created_at" DESC', params)


def candidates_for_actor(*, actor, agent):
    """Pending candidates of this owner for `agent`, most confident first."""
    return (CoreCandidate.objects.filter(actor.owner_q(), agent=agent).select_related("source_run")
            .defer(*_SOURCE_RUN_BULK).order_by("-confidence", "-created_at"))


def fact_get_for_actor(*, actor, fact_id: str) -> CoreFact:
    fact = CoreFact.objects.filter(actor.owner_q(), pk=fact_id).select_related("confirmed_by").first()
    if fact is None:
        raise NotFound("fact")
    return fact


def candidate_get_for_actor(*, actor, candidate_id: str) -> CoreCandidate:
    candidate = CoreCandidate.objects.filter(actor.owner_q(), pk=candidate_id).first()
    if candidate is None:
        raise NotFound("candidate")
    return candidate
