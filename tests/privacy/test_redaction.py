"""A run that stays keeps its row, but a stored prompt that showed erased content loses
that section's text: a colleague's run that was shown an erased teacher's document, and
the same teacher's other conversation that recalled a deleted one."""

import pytest

from agents.actor import Actor
from agents.models import Run
from agents.runner import run_sync
from knowledge.services import document_create
from privacy.models import ErasureReceipt
from privacy.services import owner_erase, subject_for_teacher, thread_delete
from tests.privacy.canary import new_canary

pytestmark = pytest.mark.django_db


def _section(run, layer):
    return next((s for s in Run.objects.get(pk=run.pk).context["sections"] if s["layer"] == layer), None)


def _prompt(run) -> str:
    return "\n".join(m["content"] for m in Run.objects.get(pk=run.pk).context["messages"])


def test_a_colleagues_prompt_loses_the_erased_teachers_document_and_keeps_the_rest(
    school, teacher, second_teacher, agent
):
    canary = new_canary()
    document_create(tenant=school, agent=agent, title="链表讲义", text=f"链表 {canary} 单链表的插入与删除。",
                    created_by=teacher)
    theirs = run_sync(actor=Actor(tenant=school, user=second_teacher), agent=agent, input="链表 单链表的插入与删除")
    assert canary in _section(theirs, "kb")["text"] and canary in _prompt(theirs)

    receipt = owner_erase(subject=subject_for_teacher(tenant=school, username="wang"), via="command")

    assert receipt["counts"]["contexts_redacted"] == 1
    assert canary not in str(Run.objects.get(pk=theirs.pk).context)
    assert _section(theirs, "kb")["redacted"] is True
    assert "链表 单链表的插入与删除" in _prompt(theirs)  # the colleague's own words stay


def test_another_conversation_of_the_teacher_loses_what_it_recalled_from_a_deleted_one(
    school, teacher, agent, memory_jobs
):
    canary = new_canary()
    actor = Actor(tenant=school, user=teacher)
    with memory_jobs():
        first = run_sync(actor=actor, agent=agent, input=f"二叉树 {canary} 遍历 出一份试卷")
    later = run_sync(actor=actor, agent=agent, input="二叉树 遍历 出一份试卷")
    assert later.thread_id != first.thread_id
    assert canary in str(_section(later, "recall"))

    receipt = thread_delete(actor=actor, thread_id=first.thread_id, via=ErasureReceipt.Via.PAGE)

    assert receipt["counts"]["contexts_redacted"] == 1
    assert canary not in str(Run.objects.get(pk=later.pk).context)


def test_a_run_that_continued_from_a_deleted_conversation_loses_the_artifact_it_was_sent(
    school, teacher, agent, api, client
):
    canary = new_canary()
    actor = Actor(tenant=school, user=teacher)
    first = run_sync(actor=actor, agent=agent, input=f"{canary} 出一份数据结构试卷")
    client.force_login(teacher)
    response = client.post(f"/api/agents/{agent.pk}/run/stream", {"input": "在上次的基础上换两道简答题",
                                                                  "context": {"run_id": first.pk}},
                           content_type="application/json")
    b"".join(response.streaming_content)
    later = Run.objects.exclude(pk=first.pk).get()
    assert later.thread_id != first.thread_id and canary in _prompt(later)

    receipt = thread_delete(actor=actor, thread_id=first.thread_id, via=ErasureReceipt.Via.PAGE)

    assert receipt["counts"]["contexts_redacted"] == 1
    assert canary not in str(Run.objects.get(pk=later.pk).context)
