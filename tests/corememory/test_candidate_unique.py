"""One pending candidate per text and owner scope, enforced by the database (the
school-wide scope has owner NULL, so the index is on COALESCE(owner, 0)), and a
conflict between two workers handled as a repeat, not an error."""

import pytest
from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from agents.actor import Actor
from agents.runner import run_prepare
from corememory import services
from corememory.models import CoreCandidate


def _candidate(*, school, agent, owner=None, end_user="", text="教高二数学"):
    return CoreCandidate.objects.create(tenant=school, agent=agent, owner=owner, end_user=end_user, text=text,
                                        normalized=services.normalize_fact(text))


def test_the_database_refuses_a_second_school_wide_candidate_with_the_same_text(school, agent):
    _candidate(school=school, agent=agent)
    with pytest.raises(IntegrityError), transaction.atomic():
        _candidate(school=school, agent=agent, text="教 高二 数学！")


def test_the_same_text_may_wait_once_in_each_owner_scope(school, agent, teacher, second_teacher):
    _candidate(school=school, agent=agent)
    _candidate(school=school, agent=agent, owner=teacher)
    _candidate(school=school, agent=agent, owner=second_teacher)
    _candidate(school=school, agent=agent, end_user="stu-1")
    with pytest.raises(IntegrityError), transaction.atomic():
        _candidate(school=school, agent=agent, owner=teacher)
    assert CoreCandidate.objects.count() == 4


def test_a_candidate_another_worker_added_meanwhile_becomes_a_repeat(school, agent, monkeypatch):
    run = run_prepare(actor=Actor(tenant=school, via_api_key=True), agent=agent, input="出题").run
    theirs = _candidate(school=school, agent=agent)
    # Our worker looked before theirs committed: the first lookup sees nothing.
    real_first, looked = QuerySet.first, []

    def first_misses_once(self):
        if self.model is CoreCandidate and not looked:
            looked.append(True)
            return None
        return real_first(self)

    monkeypatch.setattr(QuerySet, "first", first_misses_once)
    assert services._candidate_propose(run=run, text="教高二数学", confidence=0.5) == 0
    theirs.refresh_from_db()
    assert CoreCandidate.objects.count() == 1
    assert theirs.seen_count == 2
