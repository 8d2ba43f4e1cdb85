import pytest

from search.engine import clear_cache
from search.services import ScopeRef


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_cache()
    yield
    clear_cache()


@pytest.fixture
def scope(agent):
    return ScopeRef(key=f"test:{agent.pk}", tenant_id=agent.tenant_id, agent_id=agent.pk)


@pytest.fixture
def other_scope(agent):
    return ScopeRef(key=f"test:{agent.pk}:other", tenant_id=agent.tenant_id, agent_id=agent.pk)
