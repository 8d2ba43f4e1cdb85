"""Connecting a real model from the admin: a school admin sets an agent's provider and
tests the connection, over real HTTP, against a loopback OpenAI-compatible server."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.contrib.admin.utils import quote
from django.contrib.messages import get_messages

from agents.models import Agent
from tests.procs import free_port

KEY_ENV = "YIZHONG_QWEN_API_KEY"


class FakeOpenAI(BaseHTTPRequestHandler):
    """/v1/chat/completions; answers 401 unless the bearer key is `sk-right`."""

    protocol_version = "HTTP/1.1"
    received: list[dict] = []

    def log_message(self, *args):
        pass

    def _send(self, status: int, payload: dict):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeOpenAI.received.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        if self.headers.get("Authorization") != "Bearer sk-right":
            return self._send(401, {"error": {"message": "Incorrect API key provided: sk-wr***", "type": "auth"}})
        self._send(200, {
            "id": "c1", "object": "chat.completion", "created": 1, "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "pong"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 1, "total_tokens": 10},
        })


@pytest.fixture
def openai_server():
    FakeOpenAI.received = []
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), FakeOpenAI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture
def admin_client(client, school_admin):
    client.force_login(school_admin)
    return client


def _messages(response) -> list[tuple[str, str]]:
    return [(m.level_tag, str(m)) for m in get_messages(response.wsgi_request)]


def _add(admin_client, **fields):
    data = {"name": "通义出题", "language": "zh", "system_prompt": "", "provider_kind": "openai", "base_url": "",
            "model": "", "api_key_env": "", "local_first": "on", "max_output_tokens": 1024, "budget_total": 4500,
            "budget_core": 400, "budget_thread": 2000, "budget_thread_summary": 600, "budget_thread_turns": 1200,
            "thread_recent_turns": 2, "budget_recall": 800, "recall_top_k": 3, "recall_min_score": 0.2,
            "budget_kb": 1200, **fields}
    return admin_client.post("/admin/agents/agent/add/", data)


def test_a_new_agent_is_on_the_built_in_model_by_default(admin_client):
    form = admin_client.get("/admin/agents/agent/add/").context["adminform"].form
    assert form.fields["provider_kind"].initial == "local"
    assert form.fields["local_first"].initial is True


def test_a_school_admin_connects_an_agent_to_an_openai_compatible_server(admin_client, school, openai_server):
    response = _add(admin_client, base_url=openai_server, model="qwen-plus", api_key_env=KEY_ENV)
    assert response.status_code == 302, response.context["adminform"].form.errors
    agent = Agent.objects.get(name="通义出题")
    assert agent.tenant_id == school.pk
    assert (agent.provider_kind, agent.base_url, agent.model, agent.api_key_env) == (
        "openai", openai_server, "qwen-plus", KEY_ENV)


@pytest.mark.parametrize("name", ["SECRET_KEY", "DATABASE_URL", "ERZHONG_QWEN_API_KEY", "QWEN_API_KEY",
                                  "yizhong_qwen_api_key"])
def test_a_school_admin_may_name_only_a_secret_of_their_own_school(admin_client, openai_server, name):
    response = _add(admin_client, base_url=openai_server, model="qwen-plus", api_key_env=name)
    assert response.status_code == 200
    assert "YIZHONG_" in " ".join(response.context["adminform"].form.errors["api_key_env"])
    assert not Agent.objects.filter(name="通义出题").exists()


def test_an_openai_agent_needs_a_model(admin_client, openai_server):
    response = _add(admin_client, base_url=openai_server)
    assert response.status_code == 200 and "model" in response.context["adminform"].form.errors


def test_the_test_connection_action_makes_one_tiny_call_and_reports_success(
        admin_client, school, openai_server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-right")
    agent = Agent.objects.create(tenant=school, name="通义出题", provider_kind="openai", base_url=openai_server,
                                 model="qwen-plus", api_key_env=KEY_ENV)
    response = admin_client.post("/admin/agents/agent/", {"action": "test_connection", "_selected_action": [agent.pk]},
                                 follow=True)
    assert response.status_code == 200
    [(level, text)] = _messages(response)
    assert level == "success" and "通义出题" in text and "连接成功" in text and "qwen-plus" in text
    [call] = FakeOpenAI.received
    assert call["path"] == "/v1/chat/completions" and call["auth"] == "Bearer sk-right"
    assert call["body"]["max_tokens"] <= 8 and len(call["body"]["messages"]) == 1


def test_a_rejected_key_is_reported_without_the_upstream_message(admin_client, school, openai_server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-wrong")
    agent = Agent.objects.create(tenant=school, name="通义出题", provider_kind="openai", base_url=openai_server,
                                 model="qwen-plus", api_key_env=KEY_ENV)
    response = admin_client.post("/admin/agents/agent/", {"action": "test_connection", "_selected_action": [agent.pk]},
                                 follow=True)
    [(level, text)] = _messages(response)
    assert level == "error" and "连接失败" in text and KEY_ENV in text
    assert "Incorrect API key" not in text and "sk-wr" not in text


def test_an_unset_secret_is_reported_before_any_call(admin_client, school, openai_server, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    agent = Agent.objects.create(tenant=school, name="通义出题", provider_kind="openai", base_url=openai_server,
                                 model="qwen-plus", api_key_env=KEY_ENV)
    response = admin_client.post("/admin/agents/agent/", {"action": "test_connection", "_selected_action": [agent.pk]},
                                 follow=True)
    [(level, text)] = _messages(response)
    assert level == "error" and f"没有设置环境变量 {KEY_ENV}" in text
    assert FakeOpenAI.received == []


def test_an_unreachable_server_is_reported(admin_client, school):
    agent = Agent.objects.create(tenant=school, name="离线服务", provider_kind="openai",
                                 base_url=f"http://127.0.0.1:{free_port()}/v1", model="qwen-plus")
    response = admin_client.post("/admin/agents/agent/", {"action": "test_connection", "_selected_action": [agent.pk]},
                                 follow=True)
    [(level, text)] = _messages(response)
    assert level == "error" and "连不上" in text and agent.base_url in text


# The admin escapes "_" in a URL's id ("_5F"), so "ag_25…" unquoted would read as "ag%…":
# one random agent id in a hundred or so; this one always needs quoting.
@pytest.mark.parametrize("agent_id", [None, "ag_25e4f0c1b2a3d4e5f6"])
def test_the_change_forms_button_tests_the_saved_settings(admin_client, school, openai_server, monkeypatch, agent_id):
    monkeypatch.setenv(KEY_ENV, "sk-right")
    agent = Agent.objects.create(tenant=school, name="通义出题", provider_kind="openai", base_url=openai_server,
                                 model="qwen-plus", api_key_env=KEY_ENV, **({"pk": agent_id} if agent_id else {}))
    page = admin_client.get(f"/admin/agents/agent/{quote(agent.pk)}/change/").content.decode()
    assert f"/admin/agents/agent/{quote(agent.pk)}/test-connection/" in page and "测试连接" in page
    response = admin_client.post(f"/admin/agents/agent/{quote(agent.pk)}/test-connection/")
    assert response.status_code == 302 and response.url == f"/admin/agents/agent/{quote(agent.pk)}/change/"
    assert [level for level, _ in _messages(response)] == ["success"]
    assert len(FakeOpenAI.received) == 1


def test_another_schools_agent_cannot_be_tested(admin_client, other_school, openai_server):
    foreign = Agent.objects.create(tenant=other_school, name="二中", provider_kind="openai", base_url=openai_server,
                                   model="qwen-plus")
    response = admin_client.post(f"/admin/agents/agent/{quote(foreign.pk)}/test-connection/")
    assert response.status_code == 403
    response = admin_client.post("/admin/agents/agent/", {"action": "test_connection",
                                                          "_selected_action": [foreign.pk]}, follow=True)
    assert FakeOpenAI.received == []
