"""The relevance score means the same for a short and a long query: the gate (top 3 above
0.2) opens for the entry a query is about, and stays shut for one it is not about,
whatever the query's length. (The old score divided by the query's weight: a query of
two sentences could not reach 0.2 however relevant the entry.)"""

import pytest
from django.test import override_settings

from search import vectors
from search.engine import search
from search.services import index_add_many

GATE = 0.2
HISTORY = [
    ("trees", "周末课后练习：二叉树，高一3班，题量5题左右。\n给高一3班出了二叉树课后练习：5题，侧重前中后序遍历。"),
    ("heap", "堆的测验批完了，高一3班普遍建堆出问题，写个错题讲评。\n堆讲评材料完成，列出5类典型错误。"),
    ("notice", "写一篇春游的通知，周五出发。\n春游通知：周五出发，带午餐和水。"),
    ("essay", "批改这篇关于环保的议论文，写一段评语。\n评语已写好，指出论据不足。"),
    ("graph", "最短路径的教案，高二1班，两课时。\n教案完成：Dijkstra 和 Floyd，附课堂练习。"),
    ("poem", "给初二学生讲解《春望》这首古诗的意象。\n讲解稿完成：国破山河在的意象分析。"),
]
SHORT = "二叉树那份课后练习"
CHATTER = ("刚才家长群里有人问起来，我才想起这件事，之前答应了这周内处理好的，结果一忙就忘了。"
           "学校下午临时通知要交材料，所以比较赶，麻烦你快一点，格式我晚上回家再慢慢调。")
LONG = CHATTER + SHORT + "，再加两道遍历的题。"
UNRELATED = "下周的校运会报名表怎么填"
LONG_UNRELATED = CHATTER + UNRELATED


def injected(scope, query):
    return [hit.ref for hit in search(scope_key=scope.key, query=query, limit=3, min_score=GATE)]


@pytest.fixture
def history(scope):
    index_add_many(scope=scope, items=HISTORY)
    return scope


def test_a_short_and_a_long_query_about_one_entry_both_inject_it(history):
    assert injected(history, SHORT)[:1] == ["trees"]
    assert injected(history, LONG)[:1] == ["trees"]


def test_a_short_and_a_long_query_about_nothing_in_the_history_both_inject_nothing(history):
    assert injected(history, UNRELATED) == []
    assert injected(history, LONG_UNRELATED) == []


def test_the_score_of_the_entry_a_query_is_about_hardly_moves_with_the_querys_length(history):
    short = search(scope_key=history.key, query=SHORT, limit=1)[0]
    long = search(scope_key=history.key, query=LONG, limit=1)[0]
    assert short.ref == long.ref == "trees"
    assert long.score > GATE and short.score > GATE
    assert abs(long.score - short.score) < 0.4


def test_the_gate_behaves_alike_with_the_real_embedding_model(scope):
    vectors.reset()
    try:
        with override_settings(RECALL_DENSE=True):
            index_add_many(scope=scope, items=HISTORY)
            assert injected(scope, SHORT)[:1] == ["trees"]
            assert injected(scope, LONG)[:1] == ["trees"]
            assert injected(scope, UNRELATED) == []
            assert injected(scope, LONG_UNRELATED) == []
    finally:
        vectors.reset()


def test_a_scope_of_near_identical_memories_still_injects_the_matching_ones(scope):
    """The same weekly task, asked again: with the real model every memory is about as close
    as the others, so the dense model's "closer than the rest" features say nothing; the
    gate must still open on the lexical match (dense can add, never hide)."""
    items = [(f"week{i}", f"第{i}章数据结构练习：二叉树的遍历与查找\n好的，已出好第{i}章的练习。") for i in range(12)]
    vectors.reset()
    try:
        with override_settings(RECALL_DENSE=True):
            index_add_many(scope=scope, items=items)
            hits = search(scope_key=scope.key, query="第12章数据结构练习：二叉树的遍历与查找", limit=3,
                          min_score=GATE)
            assert vectors.dense_model() is not None  # the real model, not a lexical fallback
        assert len(hits) == 3
    finally:
        vectors.reset()
