"""The engine against the database: scoring, the 0–1 scale, scopes, incremental updates."""

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from search import engine
from search.engine import clear_cache, search
from search.models import Posting, SearchDoc, SearchScope
from search.services import index_add, index_add_many, index_remove
from search.terms import index_terms

CORPUS = [
    ("exam", "出一份数据结构期末试卷，包括选择题、填空题和简答题"),
    ("poem", "给初二学生讲解《春望》这首古诗的意象"),
    ("essay", "批改这篇关于环保的议论文，写一段评语"),
    ("trees", "Write a quiz about binary search trees and tree traversal"),
    ("french", "Plan a lesson on the French Revolution for year 9"),
]


def refs(hits):
    return [hit.ref for hit in hits]


@pytest.fixture
def corpus(scope):
    index_add_many(scope=scope, items=CORPUS)
    return scope


def test_a_chinese_query_finds_a_chinese_entry_by_shared_bigrams(corpus):
    hits = search(scope_key=corpus.key, query="再出一套数据结构的卷子")
    assert refs(hits)[0] == "exam"
    assert "poem" not in refs(hits)


def test_an_english_query_finds_an_english_entry_by_words_in_any_case(corpus):
    hits = search(scope_key=corpus.key, query="BINARY TREES quiz")
    assert refs(hits)[0] == "trees"
    assert set(refs(hits)) == {"trees"}


def test_an_entry_holding_every_query_term_scores_high_and_unrelated_text_nothing(corpus):
    exact = search(scope_key=corpus.key, query=CORPUS[1][1], limit=1)[0]
    assert exact.ref == "poem" and 0.8 < exact.score < 1
    index_add(scope=corpus, ref="short", text="古诗意象")
    assert search(scope_key=corpus.key, query="古诗意象", limit=1)[0].score > 0.8
    assert search(scope_key=corpus.key, query="量子力学") == []
    assert search(scope_key=corpus.key, query="photosynthesis") == []


def test_scores_lie_between_zero_and_one_best_first(corpus):
    hits = search(scope_key=corpus.key, query="数据结构试卷 简答题 binary trees 古诗", limit=10)
    assert len(hits) >= 3
    assert all(0 < hit.score <= 1 for hit in hits)
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)


def test_the_threshold_is_strict_at_its_edge(corpus):
    query = "数据结构的简答题"
    best = search(scope_key=corpus.key, query=query, limit=1)[0]
    assert 0 < best.score < 1
    assert search(scope_key=corpus.key, query=query, min_score=best.score) == []
    assert refs(search(scope_key=corpus.key, query=query, min_score=best.score - 1e-9)) == ["exam"]


def test_query_terms_no_entry_contains_lower_the_score(corpus):
    plain = search(scope_key=corpus.key, query="数据结构试卷", limit=1)[0].score
    diluted = search(scope_key=corpus.key, query="数据结构试卷 量子纠缠 黑洞辐射", limit=1)[0].score
    assert diluted < plain / 2


def test_a_query_sees_its_own_scope_only(corpus, other_scope):
    index_add(scope=other_scope, ref="elsewhere", text="出一份数据结构期末试卷")
    assert "elsewhere" not in refs(search(scope_key=corpus.key, query="数据结构期末试卷"))
    assert refs(search(scope_key=other_scope.key, query="数据结构期末试卷")) == ["elsewhere"]


def test_a_missing_or_empty_scope_or_query_finds_nothing(scope):
    assert search(scope_key="nope", query="数据结构") == []
    index_add(scope=scope, ref="a", text="数据结构")
    assert search(scope_key=scope.key, query="，。！ ") == []
    assert search(scope_key=scope.key, query="数据结构", limit=0) == []


def test_ties_go_to_the_newer_entry(scope):
    index_add_many(scope=scope, items=[("old", "二叉树遍历"), ("new", "二叉树遍历")])
    assert refs(search(scope_key=scope.key, query="二叉树遍历", limit=1)) == ["new"]


def test_entries_added_after_a_query_are_found_by_the_next_one(corpus):
    assert search(scope_key=corpus.key, query="牛顿第二定律") == []
    index_add(scope=corpus, ref="newton", text="讲解牛顿第二定律的例题")
    assert refs(search(scope_key=corpus.key, query="牛顿第二定律")) == ["newton"]
    # and the warm cache agrees with a cold one
    warm = search(scope_key=corpus.key, query="数据结构试卷 牛顿定律", limit=10)
    clear_cache()
    cold = search(scope_key=corpus.key, query="数据结构试卷 牛顿定律", limit=10)
    assert [(h.ref, round(h.score, 9)) for h in warm] == [(h.ref, round(h.score, 9)) for h in cold]


def test_removed_entries_are_never_found_again(corpus):
    assert "exam" in refs(search(scope_key=corpus.key, query="数据结构试卷"))
    assert index_remove(scope_key=corpus.key, refs=["exam", "unknown"]) == 1
    assert search(scope_key=corpus.key, query="数据结构试卷") == []
    assert not Posting.objects.filter(doc__ref="exam").exists()


def test_indexing_the_same_ref_twice_adds_it_once(scope):
    assert index_add(scope=scope, ref="a", text="数据结构") is True
    assert index_add(scope=scope, ref="a", text="数据结构") is False
    assert SearchDoc.objects.filter(scope__key=scope.key).count() == 1


def test_scope_statistics_match_the_postings(corpus):
    index_remove(scope_key=corpus.key, refs=["poem"])
    row = SearchScope.objects.get(key=corpus.key)
    docs = SearchDoc.objects.filter(scope=row)
    assert row.doc_count == docs.count() == len(CORPUS) - 1
    assert row.total_length == sum(len(index_terms(text)) for ref, text in CORPUS if ref != "poem")
    assert row.total_length == sum(d.length for d in docs)
    assert sum(p.tf for p in Posting.objects.filter(scope=row)) == row.total_length


def test_adding_an_entry_costs_the_same_queries_however_big_the_scope(scope, other_scope):
    index_add(scope=other_scope, ref="first", text="初始")
    index_add_many(scope=scope, items=[(f"e{i}", f"第{i}次作业：二叉树和图的遍历练习") for i in range(300)])
    with CaptureQueriesContext(connection) as small:
        index_add(scope=other_scope, ref="x", text="讲解牛顿第二定律的例题")
    with CaptureQueriesContext(connection) as big:
        index_add(scope=scope, ref="x", text="讲解牛顿第二定律的例题")
    assert len(big) == len(small)
    assert Posting.objects.filter(doc__ref="x", scope__key=scope.key).count() == len(set(index_terms("讲解牛顿第二定律的例题")))


def test_a_warm_query_after_one_new_entry_reads_only_that_entry(scope):
    index_add_many(scope=scope, items=[(f"e{i}", f"第{i}次作业：二叉树和图的遍历练习") for i in range(300)])
    search(scope_key=scope.key, query="二叉树的遍历")
    index_add(scope=scope, ref="new", text="二叉树的层序遍历")
    with CaptureQueriesContext(connection) as queries:
        hits = search(scope_key=scope.key, query="二叉树的遍历")
    assert "new" in refs(hits)
    assert len(queries) == 3  # the scope row, the new document, its postings


def test_bm25_sums_are_exactly_the_term_by_term_sums(scope):
    """The scores are summed over every term's postings at once; each document's terms are
    still added in query order, so the floats are the very ones term-by-term adding gives."""
    topics = ["二叉树和图的遍历练习", "链表反转与栈的应用", "Binary search trees quiz", "图的最短路径和遍历"]
    index_add_many(scope=scope, items=[(f"e{i}", f"第{i}次作业：{topics[i % 4]}，{topics[i * 7 % 4]}")
                                       for i in range(200)])
    query = "二叉树的遍历 图的最短路径 binary trees 第7次"
    search(scope_key=scope.key, query=query)
    cache = next(cache for (_, key), cache in engine._caches.items() if key == scope.key)
    terms = list(engine._distinct_query_terms(query))
    norm, n = cache._length_norm(), len(cache.refs)
    bm25, matched_idf, matched = np.zeros(n), np.zeros(n), np.zeros(n)
    for term in terms:
        where = np.frombuffer(cache.terms[term][0], dtype=np.int32)
        tf = np.frombuffer(cache.terms[term][1], dtype=np.uint16).astype(np.float64)
        idf = cache.idf(term)
        bm25[where] += idf * tf * (engine.K1 + 1) / (tf + norm[where])
        matched_idf[where] += idf
        matched[where] += 1
    assert matched.max() > 2
    for ours, expected in zip(cache.scores(terms), (bm25, matched_idf, matched)):
        assert np.array_equal(ours, expected)
