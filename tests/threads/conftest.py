import pytest


@pytest.fixture
def digest_summaries(settings):
    """Compression replies that list the folded inputs (see helpers.digest_responder)."""
    settings.SCRIPTED_RESPONDER = "tests.threads.helpers.digest_responder"
