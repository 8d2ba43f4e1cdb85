"""Red line v3 on every path that stores or shows memory: typed facts, edits, confirms,
extracted candidates, thread summaries, recall entries and archived outputs refuse a
disguised value; and at injection (fail closed) a row written before today's rules, put
straight into the database here, never reaches the prompt, while a clean row still does."""

import pytest

from django.contrib.admin.utils import quote

from agents.actor import Actor
from agents.models import Run
from corememory.models import CoreCandidate, CoreFact
from knowledge.models import Document
from knowledge.services import document_create
from recall.models import RecallEntry
from tests.core.redline_table import OBFUSCATED
from tests.corememory.conftest import add_fact, extract_replies, make_candidate, teacher_actor  # noqa: F401
from tests.threads.helpers import conversation
from threads.models import Thread

TAG_PHONE = "家长电话1\U000e00333\U000e00388\U000e00311234\U000e00345678"  # tag characters between digits
TRADITIONAL_SCORE = "張三數學考了九十二分"
VALUES = [TAG_PHONE, TRADITIONAL_SCORE, "小明有yiyuzheng", "刘洋数学B+", "电话❶❸❽❶❷❸❹❺❻❼❽"]


def prompt_of(run_id) -> str:
    return "\n".join(m["content"] for m in Run.objects.get(pk=run_id).context["messages"])


def section(run_id, layer) -> dict | None:
    return next((s for s in Run.objects.get(pk=run_id).context["sections"] if s["layer"] == layer), None)


# --- write paths ------------------------------------------------------------------------

@pytest.mark.parametrize("value", [v for _, v in OBFUSCATED], ids=[t for t, _ in OBFUSCATED])
def test_a_typed_fact_with_any_disguised_value_is_refused(teacher_api, agent, value):
    response = teacher_api.post(f"/api/agents/{agent.pk}/memory/facts", {"text": value})
    assert response.status_code == 400 and response.json()["code"] == "sensitive_content"
    assert not CoreFact.objects.exists()


@pytest.mark.parametrize("value", VALUES)
def test_an_edit_to_a_disguised_value_is_refused(teacher_api, agent, teacher_actor, add_fact, value):  # noqa: F811
    fact = add_fact(teacher_actor, "教高二")
    response = teacher_api.patch(f"/api/memory/facts/{fact.pk}", {"text": value})
    assert response.status_code == 400 and response.json()["code"] == "sensitive_content"
    assert CoreFact.objects.get(pk=fact.pk).text == "教高二"


@pytest.mark.parametrize("value", VALUES)
def test_a_candidate_stored_before_the_rules_got_stricter_cannot_be_confirmed(
        teacher_api, teacher, make_candidate, value):  # noqa: F811
    candidate = make_candidate(value, owner=teacher)
    response = teacher_api.post(f"/api/memory/candidates/{candidate.pk}/confirm")
    assert response.status_code == 400 and response.json()["code"] == "sensitive_content"
    assert not CoreFact.objects.exists()


def test_extracted_candidates_with_disguised_values_are_dropped(
        teacher_api, agent, memory_jobs, extract_replies):  # noqa: F811
    extract_replies([{"fact": value, "confidence": 0.9} for value in VALUES] + [{"fact": "教高二", "confidence": 0.8}])
    with memory_jobs():
        assert teacher_api.run(agent, "出一份数据结构试卷").status_code == 200
    assert list(CoreCandidate.objects.values_list("text", flat=True)) == ["教高二"]


def test_a_compressed_thread_summary_drops_the_sentences_the_red_line_refuses(api, agent, memory_jobs, settings):
    settings.SCRIPTED_RESPONDER = "tests.threads.helpers.digest_responder"
    replies = conversation(api, agent, [f"t1 {TRADITIONAL_SCORE}", "t2 加选择题", "t3 改难度", "t4 要答案", "t5 排版"],
                           memory_jobs)
    summary = Thread.objects.get(pk=replies[-1]["thread_id"]).rolling_summary
    assert "t2 加选择题" in summary and "t3 改难度" in summary
    assert "九十二" not in summary and "數學" not in summary


def test_a_recall_entry_keeps_no_disguised_value(api, agent, memory_jobs):
    with memory_jobs():
        reply = api.run(agent, f"二叉树遍历练习。{TAG_PHONE}").json()
    entry = RecallEntry.objects.get(run_id=reply["run_id"])
    assert "二叉树遍历练习" in entry.input
    assert "1234" not in entry.input + entry.summary


def test_an_output_with_a_disguised_value_is_not_archived(api, agent, memory_jobs):
    agent.archive_outputs = True
    agent.save()
    with memory_jobs():
        refused = api.run(agent, f"整理 REPLY:二叉树遍历练习 {TAG_PHONE}").json()
        kept = api.run(agent, "整理 REPLY:二叉树遍历练习：写出前序遍历序列").json()
    assert not Document.objects.filter(source_run_id=refused["run_id"]).exists()
    assert Document.objects.filter(source_run_id=kept["run_id"]).exists()


# --- injection: rows written straight to the database -----------------------------------

def test_a_stored_fact_that_todays_rules_refuse_is_not_injected_and_the_admin_says_why(
        teacher_api, client, agent, teacher_actor, add_fact, school_admin):  # noqa: F811
    clean = add_fact(teacher_actor, "喜欢用二叉树做例题")
    stale = add_fact(teacher_actor, "教高二")
    CoreFact.objects.filter(pk=stale.pk).update(text=TAG_PHONE)  # stored before the rules knew better
    run_id = teacher_api.run(agent, "出一份数据结构试卷").json()["run_id"]
    assert section(run_id, "core")["items"] == [clean.pk]
    assert "5678" not in prompt_of(run_id) and "喜欢用二叉树做例题" in prompt_of(run_id)

    client.force_login(school_admin)
    page = client.get("/admin/corememory/corefact/").content.decode()
    assert "不注入：含敏感个人信息（电话号码）" in page
    detail = client.get(f"/admin/corememory/corefact/{quote(stale.pk)}/change/").content.decode()
    assert "不注入：含敏感个人信息（电话号码）" in detail


def test_a_stored_thread_summary_is_injected_without_the_sentences_todays_rules_refuse(api, agent, memory_jobs):
    first = api.run(agent, "出一份数据结构试卷").json()
    Thread.objects.filter(pk=first["thread_id"]).update(
        rolling_summary=f"讨论了二叉树的遍历。{TRADITIONAL_SCORE}。下次讲红黑树。")
    run_id = api.run(agent, "继续", thread_id=first["thread_id"]).json()["run_id"]
    prompt = prompt_of(run_id)
    assert "讨论了二叉树的遍历" in prompt and "下次讲红黑树" in prompt
    assert "九十二" not in prompt and "數學" not in prompt


def test_a_stored_recall_entry_that_todays_rules_refuse_is_not_injected(api, agent, memory_jobs):
    with memory_jobs():
        clean = api.run(agent, "二叉树的前序遍历练习 REPLY:前序遍历：根、左、右").json()
        stale = api.run(agent, "二叉树的前序遍历讲义 REPLY:前序遍历讲义").json()
    RecallEntry.objects.filter(run_id=stale["run_id"]).update(input=f"二叉树的前序遍历讲义，{TRADITIONAL_SCORE}")
    run_id = api.run(agent, "二叉树的前序遍历").json()["run_id"]
    recall = section(run_id, "recall")
    assert recall is not None and clean["run_id"] in recall["items"] and stale["run_id"] not in recall["items"]
    assert "九十二" not in prompt_of(run_id)


def test_a_stored_archived_output_that_todays_rules_refuse_is_not_injected(api, agent, school):
    runs = [Run.objects.get(pk=api.run(agent, f"整理{i}").json()["run_id"]) for i in range(2)]
    clean = document_create(tenant=school, agent=agent, title="运行产物：整理", source=f"run:{runs[0].pk}",
                            text="二叉树的前序遍历：根、左、右。", source_run=runs[0])
    stale = document_create(tenant=school, agent=agent, title="运行产物：整理", source=f"run:{runs[1].pk}",
                            text=f"二叉树的前序遍历讲义。{TAG_PHONE}", source_run=runs[1])
    run_id = api.run(agent, "二叉树的前序遍历").json()["run_id"]
    items = section(run_id, "kb")["items"]
    assert set(clean.chunks.values_list("pk", flat=True)) <= set(items)
    assert not set(stale.chunks.values_list("pk", flat=True)) & set(items)
    assert "5678" not in prompt_of(run_id)
