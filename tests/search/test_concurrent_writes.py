"""Concurrent writers of one scope on PostgreSQL (row lock on the scope). SQLite serializes
writers with IMMEDIATE transactions; its multi-process case is tests/recall/test_concurrency.py."""

import threading

import pytest
from django.db import connection

from search.engine import search
from search.models import Posting, SearchDoc, SearchScope
from search.services import ScopeRef, index_add, index_remove

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="threads share no SQLite test database")

WRITERS = 8
EACH = 5


@pytest.mark.django_db(transaction=True)
def test_concurrent_adds_and_removes_keep_sequence_and_statistics_exact(agent):
    from django.db import connections

    scope = ScopeRef(key=f"test:{agent.pk}", tenant_id=agent.tenant_id, agent_id=agent.pk)
    index_add(scope=scope, ref="doomed", text="会被删除的条目 二叉树")
    start = threading.Barrier(WRITERS + 1)
    errors = []

    def writer(number):
        try:
            start.wait()
            for i in range(EACH):
                index_add(scope=scope, ref=f"w{number}-{i}", text=f"第{number}位老师的第{i}份二叉树练习")
                if number == 0 and i == 2:
                    index_remove(scope_key=scope.key, refs=["doomed"])
        except Exception as exc:  # surfaced below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    start.wait()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []

    row = SearchScope.objects.get(key=scope.key)
    docs = SearchDoc.objects.filter(scope=row)
    assert docs.count() == row.doc_count == WRITERS * EACH
    assert sorted(docs.values_list("seq", flat=True)) == sorted(set(docs.values_list("seq", flat=True)))
    assert row.version == WRITERS * EACH + 2  # every add and the removal moved it exactly once
    assert row.total_length == sum(docs.values_list("length", flat=True))
    assert sum(Posting.objects.filter(scope=row).values_list("tf", flat=True)) == row.total_length
    assert len(search(scope_key=scope.key, query="二叉树练习", limit=100)) == WRITERS * EACH
