"""The chat page's controls, below the browser: a stopped reply, a reply cut at the length
cap, exports, archived threads being read-only until restored, search over one's own
past conversations, and the thread list's order."""

import io
import re

import pytest
from django.test import Client
from django.utils import timezone
from docx import Document

from agents.actor import Actor
from agents.models import Run
from agents.runner import run_stream
from agents.tasks import memory_job
from recall.models import RecallEntry
from tests.threads.helpers import sent_prompt
from tests.web.test_pages import logged_in, run_for
from threads.models import Thread
from threads.prompts import FENCE

LONG_REPLY = "第一题：简述栈和队列的区别，并各举一个应用的例子。" * 12

EXAM = """# 数据结构期中试卷

## 一、选择题
1. 栈的特点是 **后进先出**。
2. 二叉树第 *k* 层最多有几个结点？

## 二、简答题
- 简述栈和队列的区别。
  - 各举一例

| 题型 | 分值 |
|---|---|
| 选择题 | 40 |
| 简答题 | 60 |

```python
def push(stack, x):
    stack.append(x)
```
"""


def stream_then_leave(actor, agent, text, *, deltas: int, **kwargs) -> Run:
    """Read `deltas` pieces of a streamed reply, then go away (what the WSGI server does
    when the page aborts its fetch)."""
    events = run_stream(actor=actor, agent=agent, input=text, **kwargs)
    assert next(events).startswith("event: started")
    for _ in range(deltas):
        assert next(events).startswith("event: delta")
    events.close()
    return Run.objects.get(input=text)


def teacher_actor(teacher) -> Actor:
    return Actor(tenant=teacher.tenant, user=teacher)


# --- 停止生成 -----------------------------------------------------------------------------


def test_a_reply_left_mid_stream_is_stopped_and_keeps_what_was_streamed(teacher, agent, scripted_provider,
                                                                        django_capture_on_commit_callbacks):
    scripted_provider.queue_replies(LONG_REPLY)
    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        run = stream_then_leave(teacher_actor(teacher), agent, "出一份数据结构试卷", deltas=3)
    assert run.status == Run.Status.STOPPED
    assert run.output == LONG_REPLY[:12]  # three pieces of four characters
    assert run.error_code == "" and run.finished_at is not None
    assert run.completion_tokens > 0 and run.prompt_tokens > 0
    assert run.memory_enqueued_at is not None and len(enqueued) == 1


def test_a_stopped_reply_is_shown_with_its_mark_and_can_be_exported(teacher, agent, scripted_provider):
    scripted_provider.queue_replies(LONG_REPLY)
    run = stream_then_leave(teacher_actor(teacher), agent, "出一份数据结构试卷", deltas=2)
    html = logged_in(teacher).get(f"/chat/t/{run.thread_id}/").content.decode()
    turn = html.split(f'id="turn-{run.pk}"', 1)[1]
    assert 'data-status="stopped"' in html
    assert "已停止" in turn and LONG_REPLY[:8] in turn
    assert f"/chat/runs/{run.pk}/export.docx" in turn
    assert logged_in(teacher).get(f"/chat/runs/{run.pk}/export.md").content.decode().rstrip().endswith(LONG_REPLY[:8])


def test_the_next_turn_sees_a_stopped_reply_as_cut_and_recall_indexes_it(teacher, agent, scripted_provider,
                                                                         memory_jobs):
    scripted_provider.queue_replies(LONG_REPLY)
    with memory_jobs():
        run = stream_then_leave(teacher_actor(teacher), agent, "出一份二叉树试卷", deltas=3)
    run.refresh_from_db()
    assert run.memory_done_at is not None
    assert RecallEntry.objects.filter(run=run).exists(), "a stopped turn is remembered like a completed one"

    run_for(teacher, agent, "接着出第二题", thread_id=run.thread_id)
    prompt = sent_prompt()
    assert LONG_REPLY[:12] in prompt
    assert FENCE["zh"]["stopped"] in prompt
    assert FENCE["zh"]["failed"] not in prompt


def test_a_stopped_reply_can_be_continued(teacher, agent, scripted_provider):
    scripted_provider.queue_replies(LONG_REPLY)
    run = stream_then_leave(teacher_actor(teacher), agent, "出一份数据结构试卷", deltas=2)
    events = list(run_stream(actor=teacher_actor(teacher), agent=agent, input="继续", thread_id=run.thread_id,
                             context={"run_id": run.pk}))
    assert events[-1].startswith("event: done")
    assert Run.objects.get(input="继续").continued_from_id == run.pk


# Closing a response ends the request, which closes the database connection: a
# transactional test, so that is allowed.
@pytest.mark.django_db(transaction=True)
def test_the_stream_endpoint_records_stopped_when_the_response_is_closed(teacher, agent, scripted_provider):
    scripted_provider.queue_replies(LONG_REPLY)
    client = logged_in(teacher)
    response = client.post(f"/api/agents/{agent.pk}/run/stream", {"input": "出题"}, content_type="application/json")
    pieces = iter(response.streaming_content)
    assert b"started" in next(pieces) and b"delta" in next(pieces)
    response.close()  # what the WSGI server does when the page aborts its fetch
    run = Run.objects.get()
    assert (run.status, run.output) == (Run.Status.STOPPED, LONG_REPLY[:4])


# --- a reply cut at the length cap ----------------------------------------------------


def test_a_reply_cut_at_max_tokens_says_so_and_offers_continue(teacher, agent, scripted_provider):
    agent.max_output_tokens = 20
    agent.save()
    scripted_provider.queue_replies(LONG_REPLY)
    run = run_for(teacher, agent, "出一份数据结构试卷")
    assert run.status == Run.Status.COMPLETED and run.finish_reason == "length" and run.cut_at_limit
    html = logged_in(teacher).get(f"/chat/runs/{run.pk}/").content.decode()
    assert "回复达到长度上限，被截断了。" in html
    assert re.search(rf'class="[^"]*continue-cut[^"]*" data-run-id="{run.pk}">继续<', html)

    whole = run_for(teacher, agent, "写一句评语")
    assert whole.finish_reason == "stop" and not whole.cut_at_limit
    assert "被截断" not in logged_in(teacher).get(f"/chat/runs/{whole.pk}/").content.decode()


def test_the_stream_tells_the_page_the_reply_was_cut(teacher, agent, scripted_provider):
    from tests.conftest import sse_events

    agent.max_output_tokens = 20
    agent.save()
    scripted_provider.queue_replies(LONG_REPLY)
    response = logged_in(teacher).post(f"/api/agents/{agent.pk}/run/stream", {"input": "出题"},
                                       content_type="application/json")
    name, data = sse_events(response)[-1]
    assert name == "done" and data["finish_reason"] == "length"


# --- exports ------------------------------------------------------------------------------


def test_a_reply_downloads_as_a_word_file_with_headings_lists_tables_and_code(teacher, agent, scripted_provider):
    scripted_provider.queue_replies(EXAM)
    run = run_for(teacher, agent, "出一份数据结构试卷")
    response = logged_in(teacher).get(f"/chat/runs/{run.pk}/export.docx")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    disposition = response["Content-Disposition"]
    assert disposition.startswith("attachment;") and ".docx" in disposition
    assert "filename*=UTF-8''%E5%87%BA" in disposition  # the thread title, 出一份…, percent-encoded

    document = Document(io.BytesIO(response.content))
    styled = [(p.style.name, p.text) for p in document.paragraphs if p.text]
    assert ("Heading 1", "数据结构期中试卷") in styled
    assert ("Heading 2", "一、选择题") in styled
    assert ("List Number", "栈的特点是 后进先出。") in styled
    assert ("List Bullet", "简述栈和队列的区别。") in styled
    assert ("List Bullet 2", "各举一例") in styled
    assert any(text.startswith("def push(stack, x):") for _, text in styled)
    bold = [r.text for p in document.paragraphs for r in p.runs if r.bold]
    assert "后进先出" in bold
    table = document.tables[0]
    assert [[cell.text for cell in row.cells] for row in table.rows] == [["题型", "分值"], ["选择题", "40"],
                                                                        ["简答题", "60"]]


def test_a_reply_downloads_as_markdown_unchanged(teacher, agent, scripted_provider):
    scripted_provider.queue_replies(EXAM)
    run = run_for(teacher, agent, "出一份数据结构试卷")
    response = logged_in(teacher).get(f"/chat/runs/{run.pk}/export.md")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/markdown")
    assert response["Content-Disposition"].startswith("attachment;")
    assert response.content.decode() == EXAM.rstrip() + "\n"


def test_exports_are_refused_for_another_teacher_a_failed_run_and_an_unknown_format(
    teacher, second_teacher, agent, scripted_provider
):
    from agents.providers import ProviderError

    run = run_for(teacher, agent, "出一份数据结构试卷")
    assert logged_in(second_teacher).get(f"/chat/runs/{run.pk}/export.docx").status_code == 404
    assert logged_in(teacher).get(f"/chat/runs/{run.pk}/export.pdf").status_code == 404
    scripted_provider.queue_replies(ProviderError("provider_timeout", "slow"))
    failed = run_for(teacher, agent, "超时的问题")
    assert failed.status == Run.Status.FAILED
    assert logged_in(teacher).get(f"/chat/runs/{failed.pk}/export.docx").status_code == 404
    assert Client().get(f"/chat/runs/{run.pk}/export.docx").status_code == 302  # to the login page


# --- archived threads are read-only until restored ---------------------------------------


def test_an_archived_thread_refuses_new_runs_by_api_and_page_until_restored(teacher, agent, api, memory_jobs):
    thread_id = api.run(agent, "第一问").json()["thread_id"]
    assert api.post(f"/api/threads/{thread_id}/archive").json()["status"] == "archived"
    refused = api.run(agent, "第二问", thread_id=thread_id)
    assert refused.status_code == 409 and refused.json()["code"] == "thread_archived"
    streamed = api.post(f"/api/agents/{agent.pk}/run/stream", {"input": "第二问", "thread_id": thread_id})
    assert streamed.status_code == 409 and streamed.json()["code"] == "thread_archived"
    assert Run.objects.filter(thread_id=thread_id).count() == 1
    assert Thread.objects.get(pk=thread_id).status == Thread.Status.ARCHIVED

    restored = api.post(f"/api/threads/{thread_id}/restore")
    assert restored.status_code == 200 and restored.json()["status"] == "active"
    assert api.run(agent, "第二问", thread_id=thread_id).status_code == 200


def test_the_teachers_page_refuses_a_run_on_an_archived_thread_with_409(teacher, agent):
    run = run_for(teacher, agent, "第一问")
    client = logged_in(teacher)
    client.post(f"/api/threads/{run.thread_id}/archive")
    response = client.post(f"/api/agents/{agent.pk}/run/stream", {"input": "再问", "thread_id": run.thread_id},
                           content_type="application/json")
    assert response.status_code == 409 and response.json()["code"] == "thread_archived"


def test_an_archived_thread_page_is_read_only_with_a_restore_button(teacher, agent):
    run = run_for(teacher, agent, "第一问")
    Thread.objects.filter(pk=run.thread_id).update(status=Thread.Status.ARCHIVED)
    html = logged_in(teacher).get(f"/chat/t/{run.thread_id}/").content.decode()
    assert 'class="chat-layout read-only"' in html
    assert re.search(r'<textarea id="composer-input"[^>]* disabled', html)
    assert re.search(r'<button type="submit" class="primary" id="send-button" disabled', html)
    assert f'class="primary restore-button" data-thread-id="{run.thread_id}"' in html

    active = run_for(teacher, agent, "新会话")
    html = logged_in(teacher).get(f"/chat/t/{active.thread_id}/").content.decode()
    assert "read-only" not in html and "restore-button" not in html
    assert not re.search(r'<textarea id="composer-input"[^>]* disabled', html)


def test_the_archive_lists_only_this_teachers_archived_threads(teacher, second_teacher, agent):
    mine = run_for(teacher, agent, "我的旧会话")
    active = run_for(teacher, agent, "我的新会话")
    theirs = run_for(second_teacher, agent, "李老师的旧会话")
    Thread.objects.filter(pk__in=[mine.thread_id, theirs.thread_id]).update(status=Thread.Status.ARCHIVED)
    html = logged_in(teacher).get("/chat/archived/").content.decode()
    assert "我的旧会话" in html and f'data-thread-id="{mine.thread_id}"' in html
    assert "我的新会话" not in html and "李老师的旧会话" not in html and theirs.thread_id not in html
    assert active.thread_id not in html


def test_restore_is_refused_for_another_teacher_and_another_school(teacher, second_teacher, agent, other_key, api):
    run = run_for(teacher, agent, "第一问")
    Thread.objects.filter(pk=run.thread_id).update(status=Thread.Status.ARCHIVED)
    assert logged_in(second_teacher).post(f"/api/threads/{run.thread_id}/restore").status_code == 404
    assert api.post(f"/api/threads/{run.thread_id}/restore", key=other_key).status_code == 404
    assert Thread.objects.get(pk=run.thread_id).status == Thread.Status.ARCHIVED
    assert logged_in(teacher).post(f"/api/threads/{run.thread_id}/restore").status_code == 200
    assert Thread.objects.get(pk=run.thread_id).status == Thread.Status.ACTIVE


# --- search -------------------------------------------------------------------------------


def test_search_finds_ones_own_past_conversations_in_chinese_and_links_to_the_reply(
    teacher, second_teacher, agent, memory_jobs
):
    with memory_jobs():
        tree = run_for(teacher, agent, "出一份二叉树遍历的练习题")
        run_for(teacher, agent, "写一段期末评语")
        theirs = run_for(second_teacher, agent, "李老师的二叉树遍历教案")
    Thread.objects.filter(pk=tree.thread_id).update(status=Thread.Status.ARCHIVED)

    html = logged_in(teacher).get("/chat/search/", {"q": "二叉树"}).content.decode()
    assert f'href="/chat/t/{tree.thread_id}/#turn-{tree.pk}"' in html
    assert "出一份二叉树遍历的练习题" in html and "已归档" in html
    assert "期末评语" not in html
    assert theirs.thread_id not in html and "李老师" not in html

    assert "李老师的二叉树遍历教案" in logged_in(second_teacher).get("/chat/search/", {"q": "遍历"}).content.decode()


def test_search_with_dense_recall_on_still_lists_only_what_matches_the_words(teacher, agent, memory_jobs, settings):
    """The real embedding model is on (as in production): the search box must not bring
    along every conversation the dense retrieval finds somewhat close."""
    from search import vectors

    settings.RECALL_DENSE = True
    vectors.reset()
    try:
        with memory_jobs():
            run_for(teacher, agent, "出一份二叉树遍历的练习题")
            run_for(teacher, agent, "写一段期末评语")
        assert vectors.dense_model() is not None
        html = logged_in(teacher).get("/chat/search/", {"q": "二叉树"}).content.decode()
    finally:
        vectors.reset()
    assert "出一份二叉树遍历的练习题" in html
    assert "期末评语" not in html


def test_an_empty_or_unmatched_search_is_a_page_not_an_error(teacher, agent):
    client = logged_in(teacher)
    assert client.get("/chat/search/").status_code == 200
    response = client.get("/chat/search/", {"q": "  量子力学  " * 50})
    assert response.status_code == 200 and 'class="search-result"' not in response.content.decode()


# --- the thread list ------------------------------------------------------------------------


def test_threads_are_listed_by_last_activity_with_that_time(teacher, agent):
    older = run_for(teacher, agent, "较早的会话")
    newer = run_for(teacher, agent, "较新的会话")
    run_for(teacher, agent, "在较早的会话里再问一句", thread_id=older.thread_id)
    html = logged_in(teacher).get("/chat/threads/").content.decode()
    assert html.index(older.thread_id) < html.index(newer.thread_id)
    updated = Thread.objects.get(pk=older.thread_id).updated_at
    assert updated > Thread.objects.get(pk=newer.thread_id).updated_at
    local = timezone.localtime(updated)
    assert f'<time datetime="{local.isoformat()}" title="最后活动 {local:%Y-%m-%d %H:%M}">' in html


def test_the_empty_chat_offers_example_chips_as_buttons(teacher, agent):
    html = logged_in(teacher).get("/chat/new/").content.decode()
    assert re.search(r'<button type="button" class="chip example">出一份数据结构试卷</button>', html)


@pytest.mark.parametrize("title", ["期中/试卷:二班?", "", "a" * 300])
def test_export_file_names_are_safe(title):
    import datetime

    from web.export import content_disposition, export_filename

    name = export_filename(title, datetime.datetime(2026, 6, 1, 9, 5), "docx")
    assert name.endswith("-20260601-0905.docx") and not re.search(r'[\\/:*?"<>|]', name)
    header = content_disposition(name)
    assert header.isascii() and 'filename="' in header and header.endswith(".docx")


def test_the_api_lists_archived_threads_on_request_and_refuses_an_unknown_status(api, agent):
    active = api.run(agent, "进行中的会话").json()["thread_id"]
    archived = api.run(agent, "归档的会话").json()["thread_id"]
    api.post(f"/api/threads/{archived}/archive")
    assert [t["id"] for t in api.get(f"/api/agents/{agent.pk}/threads").json()["items"]] == [active]
    listed = api.get(f"/api/agents/{agent.pk}/threads", status="archived").json()["items"]
    assert [(t["id"], t["status"]) for t in listed] == [(archived, "archived")]
    refused = api.get(f"/api/agents/{agent.pk}/threads", status="deleted")
    assert refused.status_code == 422 and refused.json()["code"] == "validation_error"


def test_search_covers_the_teachers_conversations_with_every_agent_of_the_school(teacher, agent, en_agent,
                                                                                 memory_jobs):
    with memory_jobs():
        zh = run_for(teacher, agent, "出一份二叉树遍历的练习题")
        en = run_for(teacher, en_agent, "Write a binary tree traversal quiz 二叉树")
    html = logged_in(teacher).get("/chat/search/", {"q": "二叉树"}).content.decode()
    assert f"#turn-{zh.pk}" in html and f"#turn-{en.pk}" in html
    assert en_agent.name in html and agent.name in html


def test_each_numbered_list_in_the_word_file_counts_from_its_own_start():
    from web.export import docx_bytes

    text = "## 一、选择题\n\n1. 甲\n2. 乙\n\n## 二、简答题\n\n1. 丙\n2. 丁\n\n## 三、附加题\n\n5. 戊\n"
    document = Document(io.BytesIO(docx_bytes(title="试卷", text=text)))
    numbering = document.part.numbering_part.element
    starts = {}
    for paragraph in document.paragraphs:
        if paragraph.style.name == "List Number":
            num_id = paragraph._p.pPr.numPr.numId.val
            override = numbering.num_having_numId(num_id).xpath("./w:lvlOverride/w:startOverride/@w:val")
            starts.setdefault(num_id, (paragraph.text, int(override[0])))
    assert sorted(starts.values()) == [("丙", 1), ("戊", 5), ("甲", 1)]
