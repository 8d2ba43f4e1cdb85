"""The read path (every layer's read for a new run) stays cheap in queries, what it reads
in fewer queries is still what the database holds now, and its hand-written SQL
(core/sql.py) returns what the ORM queries it replaced return, on SQLite and PostgreSQL."""

from datetime import timedelta

import pytest
from django.db.models import F, Q
from django.utils import timezone

from agents.actor import Actor
from agents.layers import ReadContext, assemble_context
from agents.models import Run
from core.tokens import count_tokens
from corememory.models import CoreFact
from corememory.selectors import facts_for_injection
from corememory.services import fact_add
from knowledge.models import Chunk
from knowledge.selectors import kb_search
from recall.models import RecallEntry
from recall.selectors import recall_search
from search.engine import Hit
from threads.models import Thread
from threads.selectors import thread_history

TOPIC = "数据结构二叉树遍历复习"
#: core: facts, their last_used; thread: the summary with the turns (one query even when
#: there are none); KB and recall: the excluded runs' rows, the scope row, the hits' rows.
#: Was 10 (11 for a short input); a thread's first run with a short input was 11.
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


def test_the_first_read_of_a_new_thread_takes_no_more(agent, memory, settings, django_assert_max_num_queries):
    """No turn yet: the thread is still read in one query, and a short input does not look
    for a last turn the thread layer already knows there is none of."""
    actor = Actor(tenant=agent.tenant, via_api_key=True)
    thread = Thread.objects.create(**actor.owner_fields(), agent=agent, title="new")
    short = "二叉树遍历再来两道"
    assert count_tokens(short) < settings.SEARCH_SHORT_QUERY_TOKENS
    read(agent, thread, short)  # the index caches, as a running server has them
    ctx = new_run(agent, thread, short)
    with django_assert_max_num_queries(READ_QUERIES):
        ledger = assemble_context(ctx)
    assert {section.layer for section in ledger.ordered_sections()} == {"core", "recall", "kb"}
    assert ctx.shared["last_turn"] is None and ctx.shared["search_query"] == short


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


# --- the hand-written reads against the ORM queries they replaced -------------------------

def _thread_history_by_orm(*, thread_id, before, limit):
    after_cursor = Q(thread__summary_upto_at__isnull=True) | Q(created_at__gt=F("thread__summary_upto_at"))
    runs = list(Run.objects.filter(after_cursor, thread_id=thread_id, status__in=Run.FINISHED, created_at__lt=before)
                .order_by("-created_at", "-id")[:limit])
    state = Thread.objects.filter(pk=thread_id).values("rolling_summary", "summary_upto_at", "agent_id",
                                                       "tenant_id").first()
    return state, runs[::-1]


def _turns(runs):
    return [(run.pk, run.input, run.output, run.status, run.created_at) for run in runs]


def test_thread_history_reads_what_the_orm_reads(agent, memory):
    runs = list(Run.objects.filter(thread=memory).order_by("created_at"))
    running = Run.objects.create(**Actor(tenant=agent.tenant, via_api_key=True).owner_fields(), agent=agent,
                                 thread=memory, input="还在进行")
    later = timezone.now() + timedelta(minutes=1)
    cursors = [None, runs[0].created_at, runs[1].created_at, runs[-1].created_at]
    for cursor in cursors:
        Thread.objects.filter(pk=memory.pk).update(summary_upto_at=cursor)
        for before in (runs[2].created_at, runs[-1].created_at, running.created_at, later):
            for limit in (1, 2, 5):
                state, turns = thread_history(thread_id=memory.pk, before=before, limit=limit)
                expected_state, expected = _thread_history_by_orm(thread_id=memory.pk, before=before, limit=limit)
                assert state == expected_state
                assert _turns(turns) == _turns(expected)
                assert all(turn.created_at.tzinfo is not None for turn in turns)
    assert running.pk not in {turn.pk for turn in thread_history(thread_id=memory.pk, before=later, limit=9)[1]}
    assert thread_history(thread_id="th_missing", before=later, limit=2) == (None, [])


def test_facts_for_injection_reads_what_the_orm_reads(agent, other_agent, memory, teacher, second_teacher):
    school_wide = Actor(tenant=agent.tenant, via_api_key=True)
    actors = [school_wide, Actor(tenant=agent.tenant, user=teacher), Actor(tenant=agent.tenant, user=second_teacher),
              school_wide.with_end_user("someone")]
    for actor in actors[1:]:
        fact_add(actor=actor, agent=agent, text=f"{actor.owner_id or actor.end_user}的偏好：题目附答案")
    fact_add(actor=Actor(tenant=other_agent.tenant, via_api_key=True), agent=other_agent, text="另一所学校的事实")
    CoreFact.objects.filter(tenant=agent.tenant).update(last_used=timezone.now() - timedelta(hours=1))
    for actor in actors:
        expected = list(CoreFact.objects.filter(actor.owner_q(), agent=agent).order_by("-last_used", "-created_at")
                        .values_list("id", "text"))
        assert facts_for_injection(actor=actor, agent=agent) == expected and expected


def test_recall_and_kb_hits_are_the_rows_the_orm_reads(agent, memory):
    actor = Actor(tenant=agent.tenant, via_api_key=True)
    entries = recall_search(actor=actor, agent=agent, query=TOPIC, limit=5, min_score=0)
    assert entries
    for entry, _ in entries:
        stored = RecallEntry.objects.get(pk=entry.pk)
        assert [getattr(entry, f.attname) for f in RecallEntry._meta.concrete_fields] == \
            [getattr(stored, f.attname) for f in RecallEntry._meta.concrete_fields]
        assert entry.happened_at.tzinfo is not None
    chunks = kb_search(agent=agent, query=TOPIC, limit=5, min_score=0)
    assert chunks
    shown = [f.attname for f in Chunk._meta.concrete_fields]
    for chunk, _ in chunks:
        stored = Chunk.objects.select_related("document").get(pk=chunk.pk)
        assert [getattr(chunk, name) for name in shown] == [getattr(stored, name) for name in shown]
        document_fields = [f.attname for f in stored.document._meta.concrete_fields if f.name != "text"]
        assert [getattr(chunk.document, name) for name in document_fields] == \
            [getattr(stored.document, name) for name in document_fields]
        assert chunk.document.created_at.tzinfo is not None
