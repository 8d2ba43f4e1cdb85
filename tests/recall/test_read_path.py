"""The read path (every layer's read for a new run) stays cheap in queries, and what it
reads in fewer queries is still what the database holds now."""

import pytest
from django.utils import timezone

from agents.actor import Actor
from agents.layers import ReadContext, assemble_context
from agents.models import Run
from knowledge.models import Chunk
from knowledge.selectors import kb_search
from recall.models import RecallEntry
from recall.selectors import recall_search
from search.engine import Hit
from threads.models import Thread

TOPIC = "数据结构二叉树遍历复习"
#: core: facts, their last_used; thread: turns with the summary; KB and recall: the
#: excluded runs' rows, the scope row, the hits' rows. Was 10 (11 for a short input).
READ_QUERIES = 9


@pytest.fixture
def memory(api, agent, remember, settings):
    """A thread with a summary and turns after its cursor, recall entries, a KB
    document and core facts: every layer has a section to show."""
    settings.RECALL_SUMMARY_MODE = "excerpt"
    agent.recall_min_score = 0.0
    agent.save()
    settings.KB_MIN_SCORE_PERCENT = 0
    thread_id = None
    for i in range(4):
        body = {"thread_id": thread_id} if thread_id else {}
        thread_id = remember(agent, f"{TOPIC}第{i}讲，出一份练习", **body)["thread_id"]
    remember(agent, f"另一个会话：{TOPIC}的期末试卷")
    api.post(f"/api/agents/{agent.pk}/documents", {"title": f"{TOPIC}讲义", "text": f"{TOPIC}：前序、中序、后序。" * 20})
    for i in range(3):
        api.post(f"/api/agents/{agent.pk}/memory/facts", {"text": f"老师偏好：{TOPIC}的题目附答案，第{i}条。"})
    thread = Thread.objects.get(pk=thread_id)
    Thread.objects.filter(pk=thread.pk).update(
        rolling_summary="老师在准备数据结构复习。",
        summary_upto_at=Run.objects.filter(thread=thread).order_by("created_at")[1].created_at)
    thread.refresh_from_db()
    return thread


def new_run(agent, thread, text):
    actor = Actor(tenant=agent.tenant, via_api_key=True)
    run = Run.objects.create(**actor.owner_fields(), agent=agent, thread=thread, input=text)
    return ReadContext(run=run, agent=agent, actor=actor, thread=thread, input=text, language="zh", shared={})


def read(agent, thread, text):
    ctx = new_run(agent, thread, text)
    return assemble_context(ctx), ctx


@pytest.mark.parametrize("text", ["简答题换两道", f"再出一份{TOPIC}的试卷，难度中等，二十道选择题，附答案和评分标准"])
def test_one_read_of_every_layer_takes_a_fixed_handful_of_queries(agent, memory, text, django_assert_max_num_queries):
    read(agent, memory, text)  # a running server has loaded the index caches (and these terms' postings)
    ctx = new_run(agent, memory, text)
    with django_assert_max_num_queries(READ_QUERIES):
        ledger = assemble_context(ctx)
    assert {section.layer for section in ledger.ordered_sections()} == {"core", "thread", "recall", "kb"}


def test_the_summary_is_shown_when_no_turn_follows_its_cursor(agent, memory):
    Thread.objects.filter(pk=memory.pk).update(rolling_summary="全部折叠进了摘要。", summary_upto_at=timezone.now())
    ledger, ctx = read(agent, memory, "简答题换两道")
    thread = next(section for section in ledger.ordered_sections() if section.layer == "thread")
    assert "全部折叠进了摘要" in thread.text and not thread.items
    # No turn read by the thread layer: the search query still leans on the last turn.
    assert f"{TOPIC}第3讲" in ctx.shared["search_query"]


def test_a_summary_that_moved_after_a_read_is_what_the_next_read_shows(agent, memory):
    first, _ = read(agent, memory, "简答题换两道")
    turns = Run.objects.filter(thread=memory, status=Run.Status.COMPLETED).order_by("created_at")
    Thread.objects.filter(pk=memory.pk).update(rolling_summary="摘要已更新到第三讲。",
                                               summary_upto_at=turns[2].created_at)
    second, _ = read(agent, memory, "简答题换两道")
    before, after = ([s for s in ledger.ordered_sections() if s.layer == "thread"][0] for ledger in (first, second))
    assert "摘要已更新到第三讲" in after.text and "摘要已更新到第三讲" not in before.text
    assert turns[2].pk in before.items and turns[2].pk not in after.items


def test_an_entry_written_after_a_read_is_found_by_the_next_read(agent, memory, remember):
    read(agent, memory, f"{TOPIC}预热")
    new = remember(agent, "出一份拓扑排序的专项练习")
    ledger, _ = read(agent, memory, "拓扑排序练习再来一份")
    recall = next(section for section in ledger.ordered_sections() if section.layer == "recall")
    assert new["run_id"] in recall.items


def test_recall_search_never_returns_another_owners_entry_whatever_the_index_says(
        agent, memory, remember, monkeypatch, second_teacher):
    entry = RecallEntry.objects.filter(agent=agent).first()
    monkeypatch.setattr("recall.selectors.search", lambda **kwargs: [Hit(ref=entry.pk, score=0.9, bm25=1.0)])
    own = Actor(tenant=agent.tenant, via_api_key=True)
    assert [e.pk for e, _ in recall_search(actor=own, agent=agent, query=TOPIC, limit=3, min_score=0)] == [entry.pk]
    for stranger in (Actor(tenant=agent.tenant, user=second_teacher), own.with_end_user("someone")):
        assert recall_search(actor=stranger, agent=agent, query=TOPIC, limit=3, min_score=0) == []


def test_kb_search_never_returns_another_agents_chunk_whatever_the_index_says(agent, memory, other_agent,
                                                                              monkeypatch):
    chunk = Chunk.objects.filter(agent=agent).first()
    monkeypatch.setattr("knowledge.selectors.search", lambda **kwargs: [Hit(ref=chunk.pk, score=0.9, bm25=1.0)])
    assert [c.pk for c, _ in kb_search(agent=agent, query=TOPIC, limit=3, min_score=0)] == [chunk.pk]
    assert kb_search(agent=other_agent, query=TOPIC, limit=3, min_score=0) == []
