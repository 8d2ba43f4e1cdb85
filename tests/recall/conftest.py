import pytest

from search.engine import clear_cache


@pytest.fixture(autouse=True)
def _fresh_search_cache():
    clear_cache()
    yield
    clear_cache()


@pytest.fixture
def remember(api, memory_jobs):
    """Run an agent through the API and its memory job, as a finished run would be."""

    def run(agent, text, client=None, **body):
        with memory_jobs():
            response = (client or api).run(agent, text, **body)
        assert response.status_code == 200, response.content
        return response.json()

    return run


def prompt_of(scripted_provider) -> str:
    """The last user message, its boundary lines' nonce tags taken out (tests/core/test_escapes.py
    checks the nonces themselves)."""
    from tests.threads.helpers import without_nonce

    return without_nonce(scripted_provider.last_call()["messages"][-1]["content"])


def section(run_id, layer):
    from agents.models import Run

    for item in Run.objects.get(pk=run_id).context.get("sections", []):
        if item["layer"] == layer:
            return item
    return None
