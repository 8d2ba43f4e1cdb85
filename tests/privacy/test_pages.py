"""Teacher pages: deleting a conversation through a confirmation page that says what goes
and that confirmed facts stay; 导出我的数据 downloads the teacher's own memory."""

import json

import pytest

from agents.actor import Actor
from agents.runner import run_sync
from corememory.models import CoreCandidate, CoreFact
from corememory.services import candidate_confirm
from threads.models import Thread

pytestmark = pytest.mark.django_db


@pytest.fixture
def conversation(school, teacher, agent, scripted_provider, memory_jobs):
    scripted_provider.queue_replies(json.dumps([{"fact": "王老师教高二数据结构", "confidence": 0.9}]),
                                    purpose="extract")
    with memory_jobs():
        run = run_sync(actor=Actor(tenant=school, user=teacher), agent=agent, input="出一份数据结构试卷")
    return run.thread


def _confirm_the_candidate(school, teacher):
    candidate = CoreCandidate.objects.get()
    candidate_confirm(tenant=school, candidate=candidate, confirmed_by=teacher)


def test_the_chat_page_links_to_deleting_the_conversation(client, teacher, conversation):
    client.force_login(teacher)
    html = client.get(f"/chat/t/{conversation.pk}/").content.decode()
    assert f"/chat/t/{conversation.pk}/delete/" in html


def test_the_confirmation_lists_what_goes_tells_that_facts_stay_and_deletes_nothing(
    client, school, teacher, conversation
):
    _confirm_the_candidate(school, teacher)
    client.force_login(teacher)

    page = client.get(f"/chat/t/{conversation.pk}/delete/")

    html = page.content.decode()
    assert page.status_code == 200 and "确认删除" in html
    assert "运行（含输入、输出和装配的上下文）：1" in html
    assert "你确认过的 1 条事实来自这段对话" in html
    assert Thread.objects.filter(pk=conversation.pk).exists()


def test_confirming_deletes_the_conversation_and_keeps_the_fact_unlinked(client, school, teacher, conversation):
    _confirm_the_candidate(school, teacher)
    client.force_login(teacher)

    page = client.post(f"/chat/t/{conversation.pk}/delete/")

    assert page.status_code == 200 and "会话已删除" in page.content.decode()
    assert "你确认过的 1 条事实来自这段对话" in page.content.decode()
    assert not Thread.objects.filter(pk=conversation.pk).exists()
    assert CoreFact.objects.get().source_run_id is None


def test_another_teacher_cannot_see_or_delete_the_conversation(client, second_teacher, conversation):
    client.force_login(second_teacher)
    assert client.get(f"/chat/t/{conversation.pk}/delete/").status_code == 404
    assert client.post(f"/chat/t/{conversation.pk}/delete/").status_code == 404
    assert Thread.objects.filter(pk=conversation.pk).exists()


def test_the_memory_page_offers_the_export_and_it_downloads_only_my_memory(
    client, school, teacher, second_teacher, agent, conversation
):
    run_sync(actor=Actor(tenant=school, user=second_teacher), agent=agent, input="李老师的试卷")
    client.force_login(teacher)
    assert "导出我的数据" in client.get("/memory/").content.decode()

    response = client.get("/memory/export/")

    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    export = json.loads(response.content)
    assert [run["input"] for thread in export["threads"] for run in thread["runs"]] == ["出一份数据结构试卷"]
    assert "李老师" not in response.content.decode()


def test_the_export_needs_a_login(client):
    assert client.get("/memory/export/").status_code == 302


def test_an_archived_conversation_can_be_deleted_from_its_read_only_page(client, teacher, conversation):
    client.force_login(teacher)
    client.post(f"/api/threads/{conversation.pk}/archive")
    html = client.get(f"/chat/t/{conversation.pk}/").content.decode()
    notice = html[html.index('id="archived-notice"'):]
    notice = notice[:notice.index("</div>")]
    assert f"/chat/t/{conversation.pk}/delete/" in notice  # visible; the usual actions are hidden there
    client.post(f"/chat/t/{conversation.pk}/delete/")
    assert not Thread.objects.filter(pk=conversation.pk).exists()
