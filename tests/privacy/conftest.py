import pytest

from search.engine import clear_cache


@pytest.fixture(autouse=True)
def _fresh_search_cache():
    clear_cache()
    yield
    clear_cache()


@pytest.fixture
def archiving_agent(agent):
    agent.archive_outputs = True
    agent.save(update_fields=["archive_outputs"])
    return agent
