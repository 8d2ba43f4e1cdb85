import json

import pytest

from agents.actor import Actor
from agents.providers import scripted
from corememory import services
from corememory.models import CoreCandidate

_extract_replies: list = []


def responder(messages, purpose):
    """Extraction answers come from the test's list; everything else from the default."""
    if purpose == "extract" and _extract_replies:
        reply = _extract_replies.pop(0)
        return reply(messages, purpose) if callable(reply) else reply
    return scripted.default_responder(messages, purpose)


@pytest.fixture
def extract_replies(settings):
    """Queue the answers of the extraction model, whatever other memory calls happen first."""
    settings.SCRIPTED_RESPONDER = f"{__name__}.responder"
    _extract_replies.clear()

    def queue(*replies):
        _extract_replies.extend(r if isinstance(r, str) or callable(r) else json.dumps(r, ensure_ascii=False)
                                for r in replies)

    yield queue
    _extract_replies.clear()


@pytest.fixture
def teacher_actor(school, teacher):
    return Actor(tenant=school, user=teacher)


@pytest.fixture
def second_actor(school, second_teacher):
    return Actor(tenant=school, user=second_teacher)


@pytest.fixture
def make_candidate(agent):
    """A pending candidate, as the memory job would store it."""

    def make(text="出题偏好选择题多一些", *, owner=None, end_user="", confidence=0.7, for_agent=None, run=None):
        target = for_agent or agent
        return CoreCandidate.objects.create(
            tenant=target.tenant, agent=target, owner=owner, end_user=end_user, text=text,
            normalized=services.normalize_fact(text), confidence=confidence, source_run=run,
        )

    return make


@pytest.fixture
def add_fact(agent):
    """A confirmed fact, typed by its owner through the one service that may create it."""

    def add(actor, text, *, for_agent=None):
        return services.fact_add(actor=actor, agent=for_agent or agent, text=text).fact

    return add
