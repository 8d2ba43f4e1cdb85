"""The knowledge base is per agent and shared by the school: one index scope per (school, agent)."""

from search.services import ScopeRef


def kb_scope(*, tenant_id: str, agent_id: str) -> ScopeRef:
    return ScopeRef(key=f"kb:{tenant_id}:{agent_id}", tenant_id=tenant_id, agent_id=agent_id)
