"""The teacher pages through Django's client: who gets in, what they see, and what they
never see (another teacher's or another school's threads)."""

import os
import subprocess
import sys

import pytest
from django.test import Client

from agents.models import Run
from agents.providers import ProviderError
from agents.services import agent_create, teacher_create, tenant_create
from tests.procs import ROOT
from threads.models import Thread

PAGES = ["/", "/chat/", "/chat/new/", "/chat/t/th_whatever/", "/chat/threads/", "/chat/runs/run_whatever/",
         "/memory/", "/costs/"]


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def run_for(user, agent, text, **body) -> Run:
    response = logged_in(user).post(f"/api/agents/{agent.pk}/run", {"input": text, **body},
                                    content_type="application/json")
    assert response.status_code == 200, response.content
    return Run.objects.get(pk=response.json()["run_id"])


@pytest.mark.parametrize("path", PAGES)
def test_every_page_sends_an_anonymous_visitor_to_log_in(client, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


def test_choosing_an_agent_needs_a_login_too(client):
    response = client.post("/agent/", {"agent_id": "agt_x"})
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_a_teacher_logs_in_with_the_form_and_lands_on_the_chat(client, teacher, agent):
    response = client.post("/login/", {"username": "wang", "password": "pw-wang-123"}, follow=True)
    assert response.redirect_chain[-1][0] == "/chat/"
    html = response.content.decode()
    assert "第一中学" in html and "王老师" in html
    assert f'data-agent-id="{agent.pk}"' in html


def test_a_wrong_password_gets_a_sentence_not_a_login(client, teacher):
    response = client.post("/login/", {"username": "wang", "password": "nope"})
    assert response.status_code == 200
    assert "用户名或密码不对" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_logging_out_is_a_post_that_ends_the_session(client, teacher):
    client.force_login(teacher)
    assert client.get("/logout/").status_code == 405
    response = client.post("/logout/")
    assert response.status_code == 302 and response["Location"] == "/login/"
    assert client.get("/chat/").status_code == 302


def test_opening_the_chat_continues_the_most_recent_active_thread(teacher, agent):
    older = run_for(teacher, agent, "出一份数据结构试卷")
    newer = run_for(teacher, agent, "写一段期末评语")
    client = logged_in(teacher)
    assert client.get("/chat/")["Location"] == f"/chat/t/{newer.thread_id}/"
    # A message in the older thread makes it the most recent again.
    run_for(teacher, agent, "简答题换两道", thread_id=older.thread_id)
    assert client.get("/chat/")["Location"] == f"/chat/t/{older.thread_id}/"
    Thread.objects.filter(pk=older.thread_id).update(status=Thread.Status.ARCHIVED)
    assert client.get("/chat/")["Location"] == f"/chat/t/{newer.thread_id}/"


def test_without_an_active_thread_the_chat_starts_a_new_one(teacher, agent):
    response = logged_in(teacher).get("/chat/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-thread-id=""' in html
    assert 'id="empty-hint"' in html
    assert 'id="thread-actions" hidden' in html


def test_a_thread_page_restores_every_turn_with_sanitized_markdown(teacher, agent, scripted_provider):
    scripted_provider.queue_replies("# 数据结构试卷\n\n- 选择题\n\n<script>alert(1)</script>")
    first = run_for(teacher, agent, "出一份数据结构试卷")
    scripted_provider.queue_replies(ProviderError("provider_timeout", "upstream said 504 with secrets"))
    run_for(teacher, agent, "简答题换两道", thread_id=first.thread_id)
    page = logged_in(teacher).get(f"/chat/t/{first.thread_id}/").content.decode()
    html = page.split('id="messages"')[1].split('id="composer"')[0]
    assert html.count('class="turn"') == 2
    assert "出一份数据结构试卷" in html and "简答题换两道" in html
    assert "<h1>数据结构试卷</h1>" in html and "<li>选择题</li>" in html
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    # The failed turn: a sentence, never the code or the upstream message.
    assert "模型回复超时了" in html
    assert "provider_timeout" not in html and "secrets" not in html
    # Only the completed reply can be continued from.
    assert html.count("continue-button") == 1


def test_a_teachers_own_text_is_shown_as_text(teacher, agent):
    run = run_for(teacher, agent, '<b onmouseover="x()">粗体</b>')
    html = logged_in(teacher).get(f"/chat/t/{run.thread_id}/").content.decode()
    assert "<b onmouseover" not in html
    assert "&lt;b onmouseover=&quot;x()&quot;&gt;粗体&lt;/b&gt;" in html


def test_the_turn_fragment_is_the_sanitized_reply(teacher, agent, scripted_provider):
    scripted_provider.queue_replies('**好** <img src=x onerror="alert(1)">')
    run = run_for(teacher, agent, "XSS")
    response = logged_in(teacher).get(f"/chat/runs/{run.pk}/")
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith(f'<article class="turn" id="turn-{run.pk}"')
    assert "<strong>好</strong>" in html and "<img" not in html


def test_another_teacher_gets_404_for_a_thread_or_turn_by_url(teacher, second_teacher, other_teacher, agent):
    run = run_for(teacher, agent, "出一份数据结构试卷")
    for outsider in (second_teacher, other_teacher):
        client = logged_in(outsider)
        assert client.get(f"/chat/t/{run.thread_id}/").status_code == 404
        assert client.get(f"/chat/runs/{run.pk}/").status_code == 404
    assert logged_in(teacher).get(f"/chat/t/{run.thread_id}/").status_code == 200


@pytest.mark.django_db
def test_a_missing_page_is_a_sentence_in_the_site_layout(teacher, settings):
    settings.DEBUG = False
    response = logged_in(teacher).get("/chat/t/th_missing/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "没有找到这个页面" in html and "第一中学" in html


def test_the_sidebar_lists_only_this_teachers_active_threads_with_the_current_agent(
    teacher, second_teacher, agent, en_agent
):
    mine = run_for(teacher, agent, "出一份数据结构试卷")
    archived = run_for(teacher, agent, "旧的会话")
    Thread.objects.filter(pk=archived.thread_id).update(status=Thread.Status.ARCHIVED)
    other_agent_thread = run_for(teacher, en_agent, "Write an essay prompt")
    theirs = run_for(second_teacher, agent, "李老师的会话")
    client = logged_in(teacher)
    client.post("/agent/", {"agent_id": agent.pk})
    html = client.get("/chat/threads/", {"current": mine.thread_id}).content.decode()
    assert f"/chat/t/{mine.thread_id}/" in html and 'aria-current="page"' in html
    for hidden in (archived, other_agent_thread, theirs):
        assert hidden.thread_id not in html
    assert "1 轮" in html


def test_a_teacher_picks_another_agent_of_the_school_and_nothing_outside_it(teacher, agent, en_agent, other_agent):
    client = logged_in(teacher)
    first = sorted([agent, en_agent], key=lambda a: a.name)[0]
    second = en_agent if first == agent else agent
    assert f'data-agent-id="{first.pk}"' in client.get("/chat/new/").content.decode()
    html = client.get("/chat/new/").content.decode()
    assert 'id="agent-select"' in html and second.name in html

    response = client.post("/agent/", {"agent_id": second.pk, "next": "/memory/"})
    assert response["Location"] == "/memory/"
    assert f'data-agent-id="{second.pk}"' in client.get("/memory/").content.decode()
    # Another school's agent is not a choice: the pick stays.
    client.post("/agent/", {"agent_id": other_agent.pk})
    assert f'data-agent-id="{second.pk}"' in client.get("/chat/new/").content.decode()
    # Switching away from a thread lands on the chat, not on the old agent's thread.
    assert client.post("/agent/", {"agent_id": first.pk, "next": "/chat/t/th_x/"})["Location"] == "/chat/"
    # An off-site next is ignored.
    assert client.post("/agent/", {"agent_id": first.pk, "next": "https://evil.example/"})["Location"] == "/chat/"


def test_opening_a_thread_of_another_agent_makes_that_agent_current(teacher, agent, en_agent):
    run = run_for(teacher, en_agent, "Write an essay prompt")
    client = logged_in(teacher)
    client.post("/agent/", {"agent_id": agent.pk})
    html = client.get(f"/chat/t/{run.thread_id}/").content.decode()
    assert f'data-agent-id="{en_agent.pk}"' in html
    assert f'data-agent-id="{en_agent.pk}"' in client.get("/memory/").content.decode()


def test_the_agent_picker_is_hidden_when_the_school_has_one_agent(teacher, agent):
    assert 'id="agent-select"' not in logged_in(teacher).get("/chat/new/").content.decode()


def test_a_school_without_agents_gets_a_sentence(db):
    school = tenant_create(slug="sanzhong", name="第三中学")
    teacher = teacher_create(tenant=school, username="he", password="pw-he-12345")
    for path in ("/chat/", "/memory/"):
        response = logged_in(teacher).get(path)
        assert response.status_code == 200
        assert "学校还没有配置助手" in response.content.decode()
    assert logged_in(teacher).get("/costs/").status_code == 200


def test_an_account_without_a_school_is_pointed_to_the_admin(db):
    from agents.models import User

    root = User.objects.create_superuser(username="root", password="pw-root-12345")
    response = logged_in(root).get("/chat/")
    assert response.status_code == 403
    assert "这个账号不属于任何学校" in response.content.decode()


def test_forms_and_the_pages_api_calls_need_the_csrf_token(teacher, agent):
    client = Client(enforce_csrf_checks=True)
    client.force_login(teacher)
    page = client.get("/chat/new/")
    token = str(page.context["csrf_token"])
    assert f'<meta name="csrf-token" content="{token}">' in page.content.decode()
    assert client.post("/agent/", {"agent_id": agent.pk}).status_code == 403
    assert client.post("/agent/", {"agent_id": agent.pk, "csrfmiddlewaretoken": token}).status_code == 302

    url = f"/api/agents/{agent.pk}/run"
    refused = client.post(url, {"input": "出一份数据结构试卷"}, content_type="application/json")
    assert refused.status_code == 403
    assert Run.objects.count() == 0
    accepted = client.post(url, {"input": "出一份数据结构试卷"}, content_type="application/json",
                           HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 200


def test_the_pages_are_chinese_until_the_teacher_picks_english(client, teacher, agent):
    client.force_login(teacher)
    # A browser on an English system still gets Chinese: only the teacher's choice counts.
    html = client.get("/chat/new/", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9").content.decode()
    assert '<html lang="zh-hans">' in html and "新建会话" in html
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/chat/new/"})
    assert response.status_code == 302 and response["Location"] == "/chat/new/"
    html = client.get("/chat/new/").content.decode()
    assert '<html lang="en">' in html
    assert "New chat" in html and "新建会话" not in html
    assert "Log out" in html
    errors = client.get("/chat/new/").context["page_config"]["errors"]
    assert errors["provider_timeout"].startswith("The model took too long")


def test_the_memory_panel_hands_its_script_the_agent_and_translated_sentences(teacher, agent):
    response = logged_in(teacher).get("/memory/")
    html = response.content.decode()
    assert f'data-agent-id="{agent.pk}"' in html
    assert "已确认" in html and "待确认" in html
    config = response.context["page_config"]
    assert config["ui"]["max_facts"] == 30
    assert "敏感" in config["errors"]["sensitive_content"]
    assert 'id="fact-row-template"' in html and 'id="candidate-row-template"' in html


def test_teacher_pages_carry_a_strict_content_security_policy(client, teacher, agent):
    client.force_login(teacher)
    policy = client.get("/chat/new/")["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "object-src 'none'" in policy
    assert "unsafe-inline" not in policy
    assert client.get("/login/").has_header("Content-Security-Policy")


def test_cookies_are_secure_and_headers_strict_when_not_in_debug():
    code = ("import django, os; os.environ['DJANGO_SETTINGS_MODULE']='memoryproj.settings'; django.setup();"
            "from django.conf import settings as s;"
            "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.LANGUAGE_COOKIE_SECURE, s.SESSION_COOKIE_HTTPONLY,"
            " s.X_FRAME_OPTIONS, s.SECURE_CONTENT_TYPE_NOSNIFF)")

    def settings_with(**env):
        base = {k: v for k, v in os.environ.items() if k not in ("SECURE_COOKIES", "DEBUG", "DJANGO_SETTINGS_MODULE")}
        result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**base, **env}, capture_output=True,
                                text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        return result.stdout.split()

    assert settings_with(DEBUG="0") == ["True", "True", "True", "True", "DENY", "True"]
    assert settings_with(DEBUG="1")[:3] == ["False", "False", "False"]
