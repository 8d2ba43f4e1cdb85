"""Recall is private per owner: one index scope per (school, agent, owner)."""

import hashlib

from search.services import ScopeRef


def recall_scope(*, tenant_id: str, agent_id: str, owner_id, end_user: str) -> ScopeRef:
    end_user_part = hashlib.sha256(end_user.encode()).hexdigest()[:24] if end_user else "-"
    return ScopeRef(
        key=f"recall:{tenant_id}:{agent_id}:{owner_id or '-'}:{end_user_part}",
        tenant_id=tenant_id, agent_id=agent_id, owner_id=owner_id,
    )


def recall_scope_of(row) -> ScopeRef:
    """The scope of a run or a recall entry."""
    return recall_scope(tenant_id=row.tenant_id, agent_id=row.agent_id, owner_id=row.owner_id, end_user=row.end_user)


def recall_scope_for_actor(*, actor, agent) -> ScopeRef:
    return recall_scope(tenant_id=actor.tenant.pk, agent_id=agent.pk, owner_id=actor.owner_id,
                        end_user=actor.end_user)
