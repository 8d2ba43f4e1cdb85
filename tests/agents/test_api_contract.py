"""What every API client relies on, whatever the operation: 401 `unauthorized` for a
missing or wrong key on every method (the CSRF check is session auth's alone), JSON 404s
for unknown /api paths, `user` taken or refused (never ignored), error messages in the
client's Accept-Language with the same `code`, and the docs page served without a CDN."""

import re

import pytest
from django.test import Client

from memoryproj.api import api as ninja_api

CJK = re.compile(r"[\u4e00-\u9fff]")


def every_operation():
    schema = ninja_api.get_openapi_schema(path_prefix="/api/")
    for path, methods in schema["paths"].items():
        for method in methods:
            yield method.upper(), re.sub(r"\{[^}]+\}", "x_1", path)


OPERATIONS = sorted(set(every_operation()))
assert {m for m, _ in OPERATIONS} >= {"GET", "POST", "PATCH", "DELETE"} and len(OPERATIONS) >= 15


@pytest.mark.parametrize("key", ["", "mk_not-a-real-key"], ids=["missing", "wrong"])
@pytest.mark.parametrize("method,path", OPERATIONS)
def test_a_missing_or_wrong_key_is_401_on_every_operation(db, method, path, key):
    # enforce_csrf_checks: the real browser-less client, where a failed key used to fall
    # through to session auth and answer 403 "CSRF check Failed" on every POST.
    client = Client(enforce_csrf_checks=True)
    headers = {"HTTP_X_API_KEY": key} if key else {}
    response = client.generic(method, path, data="{}", content_type="application/json", **headers)
    assert response.status_code == 401, (method, path, response.content)
    assert response.json()["code"] == "unauthorized"


def test_a_wrong_key_is_401_even_beside_a_logged_in_session(teacher, agent):
    client = Client(enforce_csrf_checks=True)
    client.force_login(teacher)
    response = client.post(f"/api/agents/{agent.pk}/run", data='{"input": "你好"}', content_type="application/json",
                           HTTP_X_API_KEY="mk_wrong")
    assert (response.status_code, response.json()["code"]) == (401, "unauthorized")


def test_a_session_still_needs_its_csrf_token(teacher, agent):
    client = Client(enforce_csrf_checks=True)
    client.force_login(teacher)
    response = client.post(f"/api/agents/{agent.pk}/run", data='{"input": "你好"}', content_type="application/json")
    assert (response.status_code, response.json()["code"]) == (403, "csrf_failed")


@pytest.mark.parametrize("method", ["GET", "POST", "PATCH", "DELETE"])
@pytest.mark.parametrize("path", ["/api/nope", "/api/agents/ag_1/nope/", "/api/runs/"])
def test_unknown_api_paths_answer_json_404_and_pages_keep_the_html_one(client, api_key, method, path):
    response = client.generic(method, path, HTTP_X_API_KEY=api_key)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["code"] == "not_found"
    page = client.generic(method, "/no-such-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")


def test_the_docs_page_uses_local_swagger_files_only(client):
    html = client.get("/api/docs").content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets)
    assert all(a.startswith("/static/") for a in assets), assets
    assert '"validatorUrl": null' in html  # no call to validator.swagger.io either
    for asset in assets:
        response = client.get(asset)
        assert response.status_code == 200, asset
        body = b"".join(response.streaming_content) if response.streaming else response.content
        assert len(body) > 100, asset


# --- `user`: taken where the README promises it, otherwise refused ----------------------

def test_patch_thread_takes_user_from_the_body(api, agent):
    thread_id = api.run(agent, "出一份数据结构试卷", user="stu-1").json()["thread_id"]
    response = api.patch(f"/api/threads/{thread_id}", {"title": "期中卷", "user": "stu-1"})
    assert response.status_code == 200, response.content
    assert response.json()["title"] == "期中卷"
    # The end user's thread is not the school-wide scope's, and not another end user's.
    assert api.patch(f"/api/threads/{thread_id}", {"title": "x"}).status_code == 404
    assert api.patch(f"/api/threads/{thread_id}", {"title": "x", "user": "stu-2"}).status_code == 404


def test_query_and_body_naming_different_users_is_refused(api, agent):
    thread_id = api.run(agent, "出一份数据结构试卷", user="stu-1").json()["thread_id"]
    response = api.client.patch(f"/api/threads/{thread_id}?user=stu-2", data='{"title": "x", "user": "stu-1"}',
                                content_type="application/json", HTTP_X_API_KEY=api.key)
    assert response.status_code == 422 and response.json()["code"] in ("invalid_user", "user_not_accepted")


def test_a_user_the_operation_does_not_take_is_refused_not_ignored(api, agent):
    response = api.get(f"/api/agents/{agent.pk}/documents", user="stu-1")
    assert (response.status_code, response.json()["code"]) == (422, "user_not_accepted")
    response = api.client.post(f"/api/agents/{agent.pk}/run?user=stu-1", data='{"input": "你好"}',
                               content_type="application/json", HTTP_X_API_KEY=api.key)
    assert (response.status_code, response.json()["code"]) == (422, "user_not_accepted")


def test_a_teachers_session_refuses_user_and_an_end_user_is_never_a_teacher(api, teacher_api, teacher, agent):
    response = teacher_api.get(f"/api/agents/{agent.pk}/threads", user="someone")
    assert (response.status_code, response.json()["code"]) == (422, "user_not_accepted")
    response = teacher_api.run(agent, "你好", user="someone")
    assert (response.status_code, response.json()["code"]) == (422, "user_not_accepted")
    # The README's promise: `user=wang` is an opaque end-user id, not the teacher who logs in as wang.
    teacher_api.run(agent, "王老师自己的会话")
    assert api.get(f"/api/agents/{agent.pk}/threads", user=teacher.username).json()["count"] == 0


# --- messages in the client's language, codes stable ------------------------------------

def error_requests(agent, thread_id, api_key):
    """(expected code, method, path, JSON body, headers): one request per kind of refusal."""
    auth = {"HTTP_X_API_KEY": api_key}
    run = f"/api/agents/{agent.pk}/run"
    return [
        ("unauthorized", "post", run, '{"input": "x"}', {}),
        ("not_found", "get", "/api/runs/run_nope", None, auth),
        ("not_found", "get", "/api/nope", None, auth),
        ("validation_error", "post", run, '{"inputs": 1}', auth),
        ("invalid_json", "post", run, "{not json", auth),
        ("empty_input", "post", run, '{"input": "  "}', auth),
        ("empty_title", "patch", f"/api/threads/{thread_id}", '{"title": " "}', auth),
        ("user_not_accepted", "get", f"/api/agents/{agent.pk}/documents?user=u", None, auth),
        ("invalid_user", "post", run, '{"input": "x", "user": "  "}', auth),
        ("invalid_text", "get", "/api/runs/run_a%00b", None, auth),  # refused before any view runs
        ("method_not_allowed", "delete", "/api/runs/run_x", None, auth),  # answered by ninja's router itself
    ]


@pytest.mark.parametrize("language,chinese", [(None, True), ("zh-CN,zh;q=0.9", True), ("en-US,en;q=0.8", False)])
def test_error_messages_follow_accept_language_and_codes_stay(api, agent, language, chinese):
    thread_id = api.run(agent, "出一份数据结构试卷").json()["thread_id"]
    headers = {"HTTP_ACCEPT_LANGUAGE": language} if language else {}
    for code, method, path, body, auth in error_requests(agent, thread_id, api.key):
        kwargs = {"data": body, "content_type": "application/json"} if body is not None else {}
        payload = getattr(api.client, method)(path, **kwargs, **auth, **headers).json()
        assert payload["code"] == code, (path, payload)
        assert payload["message"] and payload["message"] != code
        assert bool(CJK.search(payload["message"])) is chinese, (code, payload)


def test_the_pages_api_calls_keep_the_pages_language(teacher_api, agent):
    """A teacher's session follows the language switch, not the laptop's Accept-Language."""
    response = teacher_api.client.get("/api/runs/run_nope", HTTP_ACCEPT_LANGUAGE="en")
    assert CJK.search(response.json()["message"])

