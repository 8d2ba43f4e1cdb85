"""The write path: one entry per completed run, summarised cheaply, indexed with it."""

from datetime import timedelta

import pytest
from django.utils import timezone

from agents.models import MemoryOp, Run
from agents.providers.base import ProviderError
from agents.services import agent_create
from agents.tasks import memory_job
from recall.models import RecallEntry
from recall.services import recall_entry_append
from search.engine import search
from search.models import SearchDoc, SearchScope

LONG_OUTPUT = "一、选择题（每题 2 分）\n" + "1. 下列关于二叉树的说法正确的是？A. … B. … C. … D. …\n" * 40


def test_a_completed_run_leaves_one_indexed_entry(agent, remember):
    reply = remember(agent, "出一份数据结构试卷")
    entry = RecallEntry.objects.get(run_id=reply["run_id"])
    run = Run.objects.get(pk=reply["run_id"])
    assert (entry.run_ref, entry.thread_id, entry.happened_at) == (run.pk, run.thread_id, run.created_at)
    assert entry.input == "出一份数据结构试卷"
    assert entry.summary == run.output
    assert entry.summary_kind == RecallEntry.SummaryKind.EXCERPT
    assert SearchDoc.objects.filter(ref=entry.pk).count() == 1


def test_a_failed_run_leaves_no_entry(agent, remember, scripted_provider):
    scripted_provider.queue_replies(ProviderError("provider_timeout"))
    reply = remember(agent, "出一份数据结构试卷")
    assert reply["status"] == "failed"
    assert not RecallEntry.objects.exists()
    assert not SearchDoc.objects.exists()


def test_the_memory_job_delivered_twice_leaves_one_entry(agent, remember):
    reply = remember(agent, "出一份数据结构试卷")
    assert memory_job(reply["run_id"]) == "done"
    assert RecallEntry.objects.filter(run_id=reply["run_id"]).count() == 1
    assert SearchDoc.objects.count() == 1
    assert SearchScope.objects.get().doc_count == 1


def test_a_long_exchange_with_a_local_model_is_summarised_by_it(agent, remember, scripted_provider):
    scripted_provider.queue_replies(LONG_OUTPUT, purpose="chat")
    scripted_provider.queue_replies("老师要一份数据结构试卷，助手给出了 40 道二叉树选择题。", purpose="recall_summary")
    reply = remember(agent, "出一份数据结构试卷")
    entry = RecallEntry.objects.get(run_id=reply["run_id"])
    assert entry.summary_kind == RecallEntry.SummaryKind.MODEL
    assert entry.summary == "老师要一份数据结构试卷，助手给出了 40 道二叉树选择题。"
    call = scripted_provider.last_call("recall_summary")
    assert "出一份数据结构试卷" in call["messages"][-1]["content"]
    assert "不要记录身份证号" in call["messages"][0]["content"]
    op = MemoryOp.objects.get(kind="recall_summary")
    assert op.run_id == reply["run_id"]
    assert Run.objects.get(pk=reply["run_id"]).cost == 0


def test_a_short_exchange_is_kept_as_it_is_without_a_model_call(agent, remember, scripted_provider):
    remember(agent, "出一份数据结构试卷")
    assert not [c for c in scripted_provider.calls if c["purpose"] == "recall_summary"]


def test_when_the_summary_call_fails_the_excerpt_is_kept(agent, remember, scripted_provider):
    scripted_provider.queue_replies(LONG_OUTPUT, purpose="chat")
    scripted_provider.queue_replies(ProviderError("provider_unavailable"), purpose="recall_summary")
    reply = remember(agent, "出一份数据结构试卷")
    entry = RecallEntry.objects.get(run_id=reply["run_id"])
    assert entry.summary_kind == RecallEntry.SummaryKind.EXCERPT
    assert entry.summary.startswith("一、选择题")
    assert MemoryOp.objects.get(kind="recall_summary").status == MemoryOp.Status.FAILED


def test_excerpt_mode_never_calls_a_model(agent, remember, scripted_provider, settings):
    settings.RECALL_SUMMARY_MODE = "excerpt"
    scripted_provider.queue_replies(LONG_OUTPUT)
    reply = remember(agent, "出一份数据结构试卷")
    entry = RecallEntry.objects.get(run_id=reply["run_id"])
    assert entry.summary_kind == RecallEntry.SummaryKind.EXCERPT
    assert not MemoryOp.objects.filter(kind="recall_summary").exists()


def test_a_cloud_agent_gets_an_excerpt_not_a_paid_summary(school, teacher):
    from threads.models import Thread

    cloud = agent_create(tenant=school, name="通义", provider_kind="openai", model="qwen-plus",
                         base_url="https://dashscope.aliyuncs.com/compatible-mode/v1", local_first=False)
    thread = Thread.objects.create(tenant=school, agent=cloud, owner=teacher)
    run = Run.objects.create(tenant=school, agent=cloud, owner=teacher, thread=thread, input="出一份数据结构试卷",
                             output=LONG_OUTPUT, status=Run.Status.COMPLETED)
    entry = recall_entry_append(run=run)
    assert entry.summary_kind == RecallEntry.SummaryKind.EXCERPT
    assert not MemoryOp.objects.filter(kind="recall_summary").exists()


def test_an_excerpt_keeps_the_input_and_the_head_of_the_output(agent, remember, scripted_provider, settings):
    settings.RECALL_SUMMARY_MODE = "excerpt"
    scripted_provider.queue_replies(LONG_OUTPUT)
    reply = remember(agent, "出一份数据结构试卷")
    entry = RecallEntry.objects.get(run_id=reply["run_id"])
    assert LONG_OUTPUT.startswith(entry.summary.rstrip("…"))
    assert len(entry.summary) < len(LONG_OUTPUT)


@pytest.fixture
def three_entries(agent, remember):
    replies = [remember(agent, f"数据结构第{i}章练习") for i in range(3)]
    old = timezone.now() - timedelta(days=40)
    RecallEntry.objects.filter(run_id=replies[0]["run_id"]).update(happened_at=old)
    return replies


def test_retention_is_off_by_default(three_entries, agent, remember):
    remember(agent, "数据结构第3章练习")
    assert RecallEntry.objects.count() == 4


def test_retention_waits_a_day_past_the_limit_then_removes_in_a_batch(three_entries, agent, remember, settings):
    settings.RECALL_RETENTION_DAYS = 40  # the old entry is just past 40 days: not yet a day past
    remember(agent, "数据结构第3章练习")
    assert RecallEntry.objects.count() == 4
    settings.RECALL_RETENTION_DAYS = 0
    settings.RECALL_MAX_ENTRIES = 4  # 5 entries: within the slack of one
    remember(agent, "数据结构第4章练习")
    assert RecallEntry.objects.count() == 5
    remember(agent, "数据结构第5章练习")  # 6 > 4 + 1: back down to 4 in one batch
    assert RecallEntry.objects.count() == 4


def test_retention_by_age_removes_old_entries_and_their_index_entries(three_entries, agent, remember, settings):
    settings.RECALL_RETENTION_DAYS = 30
    remember(agent, "数据结构第3章练习")
    assert not RecallEntry.objects.filter(run_id=three_entries[0]["run_id"]).exists()
    assert RecallEntry.objects.count() == 3
    assert SearchDoc.objects.count() == 3
    scope = SearchScope.objects.get()
    hits = search(scope_key=scope.key, query="数据结构第0章练习", limit=10)
    assert {h.ref for h in hits} == set(RecallEntry.objects.values_list("pk", flat=True))


def test_retention_by_count_keeps_the_newest_once_past_the_slack(three_entries, agent, remember, settings):
    settings.RECALL_MAX_ENTRIES = 2  # removal starts above 2 + 1 entries, in one batch
    newest = remember(agent, "数据结构第3章练习")
    kept = set(RecallEntry.objects.values_list("run_ref", flat=True))
    assert kept == {three_entries[2]["run_id"], newest["run_id"]}
    assert SearchScope.objects.get().doc_count == 2


def test_deleting_a_teacher_deletes_their_recall_and_its_index(agent, teacher, client, remember):
    from tests.conftest import ApiClient

    client.force_login(teacher)
    remember(agent, "出一份数据结构期末试卷", client=ApiClient(client, key=""))
    remember(agent, "出一份数据结构期末试卷")  # the school-wide scope stays
    client.logout()
    teacher.delete()
    assert RecallEntry.objects.count() == 1
    assert SearchScope.objects.filter(key__startswith="recall:").count() == 1
    assert SearchDoc.objects.count() == 1
