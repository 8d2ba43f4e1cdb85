"""The thread API: list, restore, archive, rename — each refused across schools and owners."""

import pytest
from django.test import Client

from agents.models import Run
from agents.providers.base import ProviderError
from tests.conftest import ApiClient
from tests.threads.helpers import conversation, say
from threads.models import Thread


@pytest.fixture
def teachers(agent, teacher, second_teacher):
    """Two teachers of the same school, each logged in with their own session."""
    clients = []
    for user in (teacher, second_teacher):
        client = Client()
        client.force_login(user)
        clients.append(ApiClient(client, key=""))
    return clients


def _ids(response):
    assert response.status_code == 200, response.content
    return [item["id"] for item in response.json()["items"]]


def test_the_list_shows_the_owners_active_threads_newest_first_with_run_counts(api, agent):
    first = conversation(api, agent, ["出一份数据结构试卷", "简答题换两道"])[0]["thread_id"]
    second = say(api, agent, "写一份教案")["thread_id"]
    archived = say(api, agent, "旧会话")["thread_id"]
    api.post(f"/api/threads/{archived}/archive")

    body = api.get(f"/api/agents/{agent.pk}/threads").json()
    assert body["count"] == 2
    assert [(t["id"], t["title"], t["run_count"]) for t in body["items"]] == [
        (second, "写一份教案", 1), (first, "出一份数据结构试卷", 2),
    ]
    assert {"updated_at", "created_at", "status", "agent_id"} <= set(body["items"][0])

    # A new message moves a thread to the top.
    say(api, agent, "再加一道题", thread_id=first)
    assert _ids(api.get(f"/api/agents/{agent.pk}/threads"))[0] == first


def test_the_list_is_paginated(api, agent):
    made = [say(api, agent, f"会话 {n}")["thread_id"] for n in range(5)]
    page = api.get(f"/api/agents/{agent.pk}/threads", limit=2, offset=1).json()
    assert page["count"] == 5
    assert [t["id"] for t in page["items"]] == list(reversed(made))[1:3]


def test_the_runs_restore_the_conversation_oldest_first(api, agent, scripted_provider):
    replies = conversation(api, agent, ["出一份数据结构试卷", "简答题换两道"])
    scripted_provider.queue_replies(ProviderError("provider_timeout", "secret detail"))
    replies.append(say(api, agent, "第三问", thread_id=replies[0]["thread_id"]))

    body = api.get(f"/api/threads/{replies[0]['thread_id']}/runs").json()
    assert body["count"] == 3
    assert [(r["run_id"], r["input"], r["output"], r["status"]) for r in body["items"]] == [
        (reply["run_id"], text, reply["output"], reply["status"])
        for reply, text in zip(replies, ["出一份数据结构试卷", "简答题换两道", "第三问"])
    ]
    assert body["items"][2]["error_code"] == "provider_timeout" and body["items"][2]["output"] == ""
    page = api.get(f"/api/threads/{replies[0]['thread_id']}/runs", limit=1, offset=1).json()
    assert [r["run_id"] for r in page["items"]] == [replies[1]["run_id"]]


def test_archiving_hides_the_thread_and_keeps_everything(api, agent):
    thread_id = conversation(api, agent, ["第一问", "第二问"])[0]["thread_id"]
    response = api.post(f"/api/threads/{thread_id}/archive")
    assert response.status_code == 200
    assert response.json()["status"] == "archived" and response.json()["run_count"] == 2
    assert _ids(api.get(f"/api/agents/{agent.pk}/threads")) == []
    assert api.get(f"/api/threads/{thread_id}/runs").json()["count"] == 2
    assert api.post(f"/api/threads/{thread_id}/archive").status_code == 200  # twice is harmless


def test_a_thread_can_be_renamed(api, agent):
    thread_id = say(api, agent, "第一问")["thread_id"]
    response = api.patch(f"/api/threads/{thread_id}", {"title": "  期末复习  试卷 "})
    assert response.status_code == 200 and response.json()["title"] == "期末复习 试卷"
    assert Thread.objects.get(pk=thread_id).title == "期末复习 试卷"


@pytest.mark.parametrize("body,code", [({"title": "   "}, "empty_title"), ({"title": "长" * 201}, "validation_error"),
                                       ({}, "validation_error")])
def test_a_bad_title_is_refused_with_a_code(api, agent, body, code):
    thread_id = say(api, agent, "第一问")["thread_id"]
    response = api.patch(f"/api/threads/{thread_id}", body)
    assert response.status_code == 422 and response.json()["code"] == code
    assert Thread.objects.get(pk=thread_id).title == "第一问"


# --- refusals on every endpoint --------------------------------------------------------

THREAD_ENDPOINTS = [
    ("get", "/api/threads/{thread}/runs", None),
    ("post", "/api/threads/{thread}/archive", None),
    ("post", "/api/threads/{thread}/restore", None),
    ("patch", "/api/threads/{thread}", {"title": "改名"}),
]


def _call(client, method, path, body):
    if method == "get":
        return client.get(path)
    return getattr(client, method)(path, body)


def _unchanged(thread_id):
    thread = Thread.objects.get(pk=thread_id)
    return thread.status == "active" and thread.title == "我的会话"


@pytest.mark.parametrize("method,path,body", THREAD_ENDPOINTS)
def test_another_schools_key_gets_not_found_on_every_thread_endpoint(api, agent, other_key, method, path, body):
    thread_id = say(api, agent, "我的会话")["thread_id"]
    outsider = ApiClient(api.client, other_key)
    response = _call(outsider, method, path.format(thread=thread_id), body)
    missing = _call(outsider, method, path.format(thread="th_missing"), body)
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert response.content == missing.content, "indistinguishable from a thread that doesn't exist"
    assert _unchanged(thread_id)


@pytest.mark.parametrize("method,path,body", THREAD_ENDPOINTS)
def test_another_teacher_gets_not_found_on_every_thread_endpoint(teachers, agent, method, path, body):
    mine, theirs = teachers
    thread_id = say(mine, agent, "我的会话")["thread_id"]
    response = _call(theirs, method, path.format(thread=thread_id), body)
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert _unchanged(thread_id)
    assert _call(mine, method, path.format(thread=thread_id), body).status_code == 200


@pytest.mark.parametrize("method,path,body", THREAD_ENDPOINTS)
def test_an_end_users_thread_is_private_to_that_end_user(api, agent, method, path, body):
    thread_id = say(api, agent, "我的会话", user="stu-1")["thread_id"]
    target = path.format(thread=thread_id)
    for intruder in ("?user=stu-2", ""):  # another end user, and the school-wide scope
        response = _call(api, method, target + intruder, body)
        assert response.status_code == 404, intruder
    assert _unchanged(thread_id)
    assert _call(api, method, target + "?user=stu-1", body).status_code == 200


@pytest.mark.parametrize("method,path,body", THREAD_ENDPOINTS + [("get", "/api/agents/{agent}/threads", None)])
def test_every_thread_endpoint_needs_a_key_or_a_session(agent, api, method, path, body):
    thread_id = say(api, agent, "我的会话")["thread_id"]
    anonymous = ApiClient(Client(), key="")
    response = _call(anonymous, method, path.format(thread=thread_id, agent=agent.pk), body)
    assert response.status_code == 401 and response.json()["code"] == "unauthorized"


def test_the_thread_list_is_refused_for_another_schools_agent(api, other_agent, other_key):
    ApiClient(api.client, other_key).run(other_agent, "二中的会话")
    response = api.get(f"/api/agents/{other_agent.pk}/threads")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_the_thread_list_never_shows_another_owners_threads(api, teachers, agent):
    mine, theirs = teachers
    teacher_thread = say(mine, agent, "王老师的会话")["thread_id"]
    school_thread = say(api, agent, "学校范围的会话")["thread_id"]
    student_thread = say(api, agent, "学生的会话", user="stu-1")["thread_id"]

    assert _ids(mine.get(f"/api/agents/{agent.pk}/threads")) == [teacher_thread]
    assert _ids(theirs.get(f"/api/agents/{agent.pk}/threads")) == []
    assert _ids(api.get(f"/api/agents/{agent.pk}/threads")) == [school_thread]
    assert _ids(api.get(f"/api/agents/{agent.pk}/threads", user="stu-1")) == [student_thread]
    # A teacher can't widen their scope with ?user=: refused, not silently ignored.
    response = theirs.get(f"/api/agents/{agent.pk}/threads", user="stu-1")
    assert (response.status_code, response.json()["code"]) == (422, "user_not_accepted")


def test_a_teacher_cannot_run_on_another_teachers_thread(teachers, agent):
    mine, theirs = teachers
    thread_id = say(mine, agent, "我的会话")["thread_id"]
    response = theirs.run(agent, "插一句", thread_id=thread_id)
    assert response.status_code == 400 and response.json()["code"] == "thread_mismatch"
    assert Run.objects.filter(thread_id=thread_id).count() == 1


@pytest.mark.parametrize("params", [{"offset": 10**20}, {"offset": -1}, {"limit": 0}, {"limit": 10**6}])
def test_thread_paging_out_of_range_is_a_422(api, agent, params):
    thread_id = api.run(agent, "出题").json()["thread_id"]
    for path in (f"/api/agents/{agent.pk}/threads", f"/api/threads/{thread_id}/runs"):
        response = api.get(path, **params)
        assert response.status_code == 422, (path, params)


def test_a_title_with_a_nul_is_refused(api, agent):
    thread_id = api.run(agent, "出题").json()["thread_id"]
    response = api.patch(f"/api/threads/{thread_id}", {"title": "a\x00b"})
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_text"
