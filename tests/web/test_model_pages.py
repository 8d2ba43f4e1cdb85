"""The pages of issue 12 that are about the model: the built-in-model notice and its help
page, provenance on the memory page's data, and "模型看到了什么" for a reply."""

import json

from django.contrib.admin.utils import quote

import pytest

from agents.services import agent_create
from corememory.models import CoreCandidate, CoreFact
from tests.web.test_pages import logged_in, run_for


@pytest.fixture
def builtin_agent(school):
    return agent_create(tenant=school, name="演示助手", provider_kind="local")


def test_the_chat_says_in_one_line_that_an_agent_runs_on_the_built_in_model(teacher, builtin_agent):
    html = logged_in(teacher).get("/chat/new/").content.decode()
    assert html.count('id="model-notice"') == 1
    assert "内置演示模型" in html and 'href="/help/model/"' in html


def test_the_memory_page_says_so_too(teacher, builtin_agent):
    html = logged_in(teacher).get("/memory/").content.decode()
    assert html.count('id="model-notice"') == 1


def test_an_agent_on_a_real_model_gets_no_notice(teacher, school):
    agent_create(tenant=school, name="通义", provider_kind="openai", model="qwen-plus",
                 base_url="http://127.0.0.1:9/v1")
    for page in ("/chat/new/", "/memory/"):
        assert 'id="model-notice"' not in logged_in(teacher).get(page).content.decode()


def test_the_help_page_explains_how_to_connect_a_real_model(teacher, school_admin, builtin_agent):
    html = logged_in(teacher).get("/help/model/").content.decode()
    assert "<code>YIZHONG_QWEN_API_KEY</code>" in html and "测试连接" in html
    assert f"/admin/agents/agent/{quote(builtin_agent.pk)}/change/" not in html, "a teacher gets no admin link"
    html = logged_in(school_admin).get("/help/model/").content.decode()
    assert f"/admin/agents/agent/{quote(builtin_agent.pk)}/change/" in html


def test_each_finished_reply_has_a_drawer_of_what_the_model_saw(teacher, agent):
    run = run_for(teacher, agent, "出一份数据结构试卷")
    html = logged_in(teacher).get(f"/chat/t/{run.thread_id}/").content.decode()
    assert f'data-url="/chat/runs/{run.pk}/context/"' in html and "模型看到了什么" in html


def test_the_drawer_lists_the_sections_with_layer_tokens_and_budget(teacher, agent, memory_jobs):
    client = logged_in(teacher)
    with memory_jobs():
        first = run_for(teacher, agent, "出一份数据结构试卷 <b>粗体</b>")
    second = run_for(teacher, agent, "简答题换两道", thread_id=first.thread_id)
    snapshot = json.loads(client.get(f"/api/runs/{second.pk}/context").content)
    [thread_section] = [s for s in snapshot["sections"] if s["layer"] == "thread"]
    html = client.get(f"/chat/runs/{second.pk}/context/").content.decode()
    assert 'data-layer="thread"' in html and "本会话前情" in html
    assert f"{thread_section['tokens']:,} / {thread_section['budget']:,} token" in html
    assert f"{snapshot['total_tokens']:,} / {snapshot['total_budget']:,} token" in html
    assert "&lt;b&gt;粗体&lt;/b&gt;" in html and "<b>粗体</b>" not in html, "history is shown as text"


def test_a_reply_without_memory_says_so(teacher, agent):
    run = run_for(teacher, agent, "出一份数据结构试卷")
    html = logged_in(teacher).get(f"/chat/runs/{run.pk}/context/").content.decode()
    assert "没有用到任何记忆" in html


def test_another_teachers_reply_context_is_not_found(teacher, second_teacher, agent):
    run = run_for(teacher, agent, "出一份数据结构试卷")
    assert logged_in(second_teacher).get(f"/chat/runs/{run.pk}/context/").status_code == 404


def _memory(client, agent) -> dict:
    response = client.get(f"/api/agents/{agent.pk}/memory")
    assert response.status_code == 200
    return response.json()


def test_a_candidate_says_which_conversation_and_request_it_came_from(teacher, agent):
    run = run_for(teacher, agent, "我教高二（3）班的数据结构，" + "试卷都用百分制。" * 10)
    CoreCandidate.objects.create(tenant=agent.tenant, agent=agent, owner=teacher, text="教高二数据结构",
                                 normalized="教高二数据结构", confidence=0.8, source_run=run)
    [candidate] = _memory(logged_in(teacher), agent)["pending"]
    assert candidate["source_run"] == run.pk and candidate["source_thread"] == run.thread_id
    assert candidate["source_at"].startswith(run.created_at.isoformat()[:19])
    assert candidate["source_excerpt"].startswith("我教高二（3）班的数据结构") and len(candidate["source_excerpt"]) == 60


def test_a_confirmed_fact_says_who_confirmed_it_when_and_where_it_came_from(teacher, agent):
    run = run_for(teacher, agent, "我教高二数据结构")
    candidate = CoreCandidate.objects.create(tenant=agent.tenant, agent=agent, owner=teacher, text="教高二数据结构",
                                             normalized="教高二数据结构", confidence=0.8, source_run=run)
    client = logged_in(teacher)
    assert client.post(f"/api/memory/candidates/{candidate.pk}/confirm", "{}",
                       content_type="application/json").status_code == 200
    [fact] = _memory(client, agent)["confirmed"]
    assert fact["confirmed_by_name"] == "王老师" and fact["confirmed_at"]
    assert (fact["source_run"], fact["source_thread"], fact["source_excerpt"]) == (run.pk, run.thread_id,
                                                                                  "我教高二数据结构")


def test_a_typed_fact_has_no_source_conversation(teacher, agent):
    client = logged_in(teacher)
    client.post(f"/api/agents/{agent.pk}/memory/facts", json.dumps({"text": "试卷用百分制"}),
                content_type="application/json")
    [fact] = _memory(client, agent)["confirmed"]
    assert fact["origin"] == "manual" and fact["source_thread"] is None and fact["source_excerpt"] == ""
    assert CoreFact.objects.get().confirmed_by == teacher


def test_the_memory_page_carries_the_provenance_sentences_and_the_conversation_url(teacher, agent):
    html = logged_in(teacher).get("/memory/").content.decode()
    assert 'data-thread-url="/chat/t/THREAD_ID/"' in html
    config = json.loads(html.split('id="page-config" type="application/json">', 1)[1].split("</script>", 1)[0])
    assert config["ui"]["view_reply"] == "查看那次回复" and "{who}" in config["ui"]["confirmed_by"]
    assert html.count('class="provenance"') == 2  # in the fact and the candidate row templates
