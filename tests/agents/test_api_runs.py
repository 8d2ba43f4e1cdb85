import pytest

from agents.models import Run
from agents.providers.base import ProviderError
from tests.conftest import sse_events
from threads.models import Thread


def test_a_sync_run_returns_the_reply_and_its_thread(api, agent):
    response = api.run(agent, "出一份数据结构试卷")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "completed"
    assert body["output"].startswith("好的，已收到")
    assert body["thread_id"].startswith("th_")
    run = Run.objects.get(pk=body["run_id"])
    assert run.thread_id == body["thread_id"]
    assert run.prompt_tokens > 0 and run.completion_tokens > 0
    assert run.finished_at is not None


def test_a_missing_key_is_refused_with_401(api, agent):
    response = api.run(agent, "你好", key="")
    assert response.status_code == 401
    assert response.json()["code"] == "unauthorized"


def test_an_invalid_key_is_refused_with_401(api, agent):
    response = api.run(agent, "你好", key="mk_not-a-real-key")
    assert response.status_code == 401
    assert response.json()["code"] == "unauthorized"


def test_another_schools_agent_is_not_found(api, other_agent):
    response = api.run(other_agent, "你好")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert not Run.objects.exists()


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_an_empty_input_is_refused_and_nothing_is_written(api, agent, text):
    response = api.run(agent, text)
    assert response.status_code == 422
    assert response.json()["code"] == "empty_input"
    assert not Run.objects.exists() and not Thread.objects.exists()


def test_an_input_over_the_working_memory_limit_is_refused_not_cut(api, agent, settings):
    response = api.run(agent, "字" * (settings.WORKING_MEMORY_MAX_CHARS + 1))
    assert response.status_code == 422
    assert response.json()["code"] == "input_too_long"
    assert not Run.objects.exists() and not Thread.objects.exists()


def test_an_input_over_the_token_limit_is_refused(api, agent, settings):
    settings.WORKING_MEMORY_MAX_TOKENS = 50
    response = api.run(agent, "binary tree " * 100)
    assert response.status_code == 422
    assert response.json()["code"] == "input_too_long"


def test_a_body_that_is_not_json_is_a_400_with_a_code(api, agent):
    response = api.post(f"/api/agents/{agent.pk}/run", raw="{not json")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_json"
    assert not Run.objects.exists()


def test_a_body_of_the_wrong_shape_is_a_422_with_a_code(api, agent):
    response = api.post(f"/api/agents/{agent.pk}/run", {"text": "no input field"})
    assert response.status_code == 422
    assert response.json()["code"] == "validation_error"


def test_a_provider_failure_is_a_failed_run_with_a_sanitized_code(api, agent, scripted_provider):
    scripted_provider.queue_replies(ProviderError("provider_unavailable", "upstream said: secret internal detail"))
    response = api.run(agent, "出题")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "failed"
    assert body["error_code"] == "provider_unavailable"
    assert body["output"] == ""
    assert "secret internal detail" not in response.content.decode()
    run = Run.objects.get(pk=body["run_id"])
    assert run.status == Run.Status.FAILED and run.error_code == "provider_unavailable"


def test_a_stream_emits_started_deltas_and_done(api, agent):
    response = api.post(f"/api/agents/{agent.pk}/run/stream", {"input": "出一份数据结构试卷"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/event-stream")
    events = sse_events(response)
    names = [name for name, _ in events]
    assert names[0] == "started" and names[-1] == "done"
    assert names.count("delta") >= 2
    started = events[0][1]
    run = Run.objects.get(pk=started["run_id"])
    assert started["thread_id"] == run.thread_id
    assert "".join(data["text"] for name, data in events if name == "delta") == run.output
    assert events[-1][1] == {"run_id": run.pk, "status": "completed", "finish_reason": "stop"}


def test_a_stream_reports_a_provider_failure_as_an_error_event(api, agent, scripted_provider):
    scripted_provider.queue_replies(ProviderError("provider_timeout", "read timed out"))
    response = api.post(f"/api/agents/{agent.pk}/run/stream", {"input": "出题"})
    events = sse_events(response)
    assert [name for name, _ in events] == ["started", "error"]
    assert events[-1][1]["code"] == "provider_timeout"
    assert Run.objects.get().status == Run.Status.FAILED


def test_a_stream_validation_error_is_plain_json_not_sse(api, agent):
    response = api.post(f"/api/agents/{agent.pk}/run/stream", {"input": ""})
    assert response.status_code == 422
    assert response.json()["code"] == "empty_input"


def test_a_client_that_leaves_mid_stream_leaves_a_failed_run_not_a_running_one(agent, school):
    from agents.actor import Actor
    from agents.runner import run_stream

    events = run_stream(actor=Actor(tenant=school, via_api_key=True), agent=agent, input="出题")
    assert next(events).startswith("event: started")
    events.close()  # what the WSGI server does when the client goes away
    run = Run.objects.get()
    assert run.status == Run.Status.FAILED
    assert run.error_code == "client_disconnected"
    assert run.memory_enqueued_at is not None


def test_get_run_and_its_context(api, agent):
    run_id = api.run(agent, "出一份数据结构试卷").json()["run_id"]
    run = api.get(f"/api/runs/{run_id}")
    assert run.status_code == 200
    assert run.json()["input"] == "出一份数据结构试卷"
    context = api.get(f"/api/runs/{run_id}/context")
    assert context.status_code == 200
    body = context.json()
    assert body["total_budget"] == agent.budget_total
    assert body["messages"][-1]["content"].endswith("出一份数据结构试卷")


def test_another_schools_run_is_not_found(api, agent, other_key):
    run_id = api.run(agent, "出题").json()["run_id"]
    for path in (f"/api/runs/{run_id}", f"/api/runs/{run_id}/context"):
        response = api.get(path, key=other_key)
        assert response.status_code == 404, path
        assert response.json()["code"] == "not_found"


def test_an_end_users_run_is_private_to_that_end_user(api, agent):
    run_id = api.run(agent, "出题", user="student-portal-7").json()["run_id"]
    assert api.get(f"/api/runs/{run_id}").status_code == 404  # school-wide scope
    assert api.get(f"/api/runs/{run_id}", user="someone-else").status_code == 404
    assert api.get(f"/api/runs/{run_id}", user="student-portal-7").status_code == 200


def test_a_teacher_session_can_run_but_not_see_another_teachers_run(client, agent, teacher, second_teacher):
    from tests.conftest import ApiClient

    client.force_login(teacher)
    mine = ApiClient(client, key="").run(agent, "出题").json()["run_id"]
    client.force_login(second_teacher)
    assert ApiClient(client, key="").get(f"/api/runs/{mine}").status_code == 404


def test_the_openapi_document_lists_the_public_endpoints(client):
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in ("/api/agents/{agent_id}/run", "/api/agents/{agent_id}/run/stream", "/api/runs/{run_id}",
                 "/api/runs/{run_id}/context"):
        assert path in paths


@pytest.mark.parametrize("text", ["hi \ud800 there", "nul\x00inside"])
def test_text_that_no_database_can_store_is_a_422_not_a_500(api, agent, text):
    import json as _json

    response = api.post(f"/api/agents/{agent.pk}/run", raw=_json.dumps({"input": text}))
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_text"
    assert not Run.objects.exists() and not Thread.objects.exists()


@pytest.mark.parametrize("body", [{"thread_id": "th_\ud800"}, {"thread_id": "th_a\x00b"}, {"thread_id": "../x"},
                                  {"context": {"run_id": "run_\x00"}}])
def test_malformed_ids_in_the_body_are_a_422(api, agent, body):
    import json as _json

    path = f"/api/agents/{agent.pk}/run/stream" if "context" in body else f"/api/agents/{agent.pk}/run"
    response = api.post(path, raw=_json.dumps({"input": "出题", **body}))
    assert response.status_code == 422
    assert not Run.objects.exists()


def test_a_nul_in_the_url_is_a_400_with_a_code(api):
    response = api.get("/api/runs/run_a%00b")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_text"
    assert api.get("/api/runs/run_ab", user="a\x00b").status_code == 400


@pytest.mark.parametrize("user", ["   ", "\t"])
def test_a_blank_end_user_is_refused_rather_than_widened_to_the_school(api, agent, user):
    response = api.run(agent, "出题", user=user)
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_user"
