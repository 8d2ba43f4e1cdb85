"""The memory endpoints: list, confirm (with eviction), delete, add by hand, edit; the
red line on everything a person types; school and owner scoping on every endpoint."""

from datetime import timedelta

import pytest
from django.utils import timezone

from agents.actor import Actor
from agents.models import Run
from corememory import services
from corememory.models import CoreCandidate, CoreFact
from tests.conftest import ApiClient


@pytest.fixture
def second_teacher_api(client, second_teacher):
    client.force_login(second_teacher)
    return ApiClient(client, key="")


def test_memory_lists_confirmed_facts_and_pending_candidates_by_confidence(
        teacher_api, agent, teacher, teacher_actor, make_candidate, add_fact):
    fact = add_fact(teacher_actor, "教高二")
    low = make_candidate("每周三上实验课", owner=teacher, confidence=0.4)
    high = make_candidate("喜欢用二叉树做例题", owner=teacher, confidence=0.9)

    body = teacher_api.get(f"/api/agents/{agent.pk}/memory").json()

    assert [f["id"] for f in body["confirmed"]] == [fact.pk]
    assert body["confirmed"][0]["text"] == "教高二"
    assert body["confirmed"][0]["confirmed_by"] == teacher.username
    assert {"last_used", "created_at", "source_run", "origin"} <= set(body["confirmed"][0])
    assert [c["id"] for c in body["pending"]] == [high.pk, low.pk]
    assert {"text", "confidence", "source_run", "created_at"} <= set(body["pending"][0])
    assert body["limit"] == 30
    assert fact.pk.startswith("fact_") and high.pk.startswith("cand_")


def test_confirming_a_candidate_makes_it_a_fact_of_its_owner(teacher_api, agent, teacher, make_candidate):
    run_id = teacher_api.run(agent, "我教高二").json()["run_id"]
    candidate = make_candidate("教高二", owner=teacher, run=Run.objects.get(pk=run_id))
    response = teacher_api.post(f"/api/memory/candidates/{candidate.pk}/confirm")

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["fact"]["text"] == "教高二" and body["evicted"] == [] and body["already_confirmed"] is False
    fact = CoreFact.objects.get()
    assert (fact.owner_id, fact.agent_id, fact.source_run_id, fact.confirmed_by_id) == (
        teacher.pk, agent.pk, run_id, teacher.pk)
    assert body["fact"]["source_run"] == run_id
    assert not CoreCandidate.objects.exists()


def test_a_confirm_without_a_body_is_accepted(teacher_api, teacher, make_candidate):
    candidate = make_candidate("教高二", owner=teacher)
    response = teacher_api.post(f"/api/memory/candidates/{candidate.pk}/confirm", raw="")
    assert response.status_code == 200, response.content
    assert CoreFact.objects.get().text == "教高二"


def test_a_candidate_can_be_confirmed_with_edited_text(teacher_api, teacher, make_candidate):
    candidate = make_candidate("出题偏好选择题", owner=teacher)
    response = teacher_api.post(f"/api/memory/candidates/{candidate.pk}/confirm", {"text": "出题偏好：选择题多一些"})
    assert response.status_code == 200
    assert CoreFact.objects.get().text == "出题偏好：选择题多一些"


def test_an_edited_confirm_with_sensitive_text_is_refused_without_echoing_it(teacher_api, teacher, make_candidate):
    candidate = make_candidate("教高二", owner=teacher)
    response = teacher_api.post(f"/api/memory/candidates/{candidate.pk}/confirm", {"text": "教高二，张三数学92"})
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "sensitive_content" and body["kind"] == "score"
    assert "92" not in str(body) and "张三" not in str(body)
    assert not CoreFact.objects.exists() and CoreCandidate.objects.filter(pk=candidate.pk).exists()


def test_confirming_the_31st_fact_evicts_the_least_recently_used_and_says_so(
        teacher_api, agent, teacher, teacher_actor, make_candidate, add_fact):
    facts = [add_fact(teacher_actor, f"偏好{i}号题型") for i in range(30)]
    now = timezone.now()
    for i, fact in enumerate(facts):  # fact 7 is the least recently used
        CoreFact.objects.filter(pk=fact.pk).update(last_used=now - timedelta(minutes=i if i != 7 else 999))
    candidate = make_candidate("教高二", owner=teacher)

    response = teacher_api.post(f"/api/memory/candidates/{candidate.pk}/confirm")

    body = response.json()
    assert [f["id"] for f in body["evicted"]] == [facts[7].pk]
    assert body["evicted"][0]["text"] == "偏好7号题型"
    assert "偏好7号题型" in body["message"]
    assert CoreFact.objects.filter(owner=teacher, agent=agent).count() == 30
    assert not CoreFact.objects.filter(pk=facts[7].pk).exists()
    assert CoreFact.objects.filter(text="教高二").exists()


def test_the_limit_is_per_owner(teacher_api, teacher_actor, second_actor, teacher, make_candidate, add_fact):
    for i in range(30):
        add_fact(second_actor, f"偏好{i}号题型")
    candidate = make_candidate("教高二", owner=teacher)
    assert teacher_api.post(f"/api/memory/candidates/{candidate.pk}/confirm").json()["evicted"] == []
    assert CoreFact.objects.count() == 31


def test_confirming_a_text_already_confirmed_stores_nothing_new(teacher_api, teacher, teacher_actor, add_fact,
                                                                 make_candidate):
    add_fact(teacher_actor, "教高二")
    candidate = make_candidate("教 高二。", owner=teacher)
    body = teacher_api.post(f"/api/memory/candidates/{candidate.pk}/confirm").json()
    assert body["already_confirmed"] is True
    assert CoreFact.objects.count() == 1 and not CoreCandidate.objects.exists()


def test_a_candidate_can_be_deleted(teacher_api, teacher, make_candidate):
    candidate = make_candidate(owner=teacher)
    assert teacher_api.delete(f"/api/memory/candidates/{candidate.pk}").status_code == 204
    assert not CoreCandidate.objects.exists()
    assert teacher_api.delete(f"/api/memory/candidates/{candidate.pk}").status_code == 404
    assert teacher_api.post(f"/api/memory/candidates/{candidate.pk}/confirm").status_code == 404


def test_a_person_can_add_edit_and_delete_a_fact(teacher_api, agent, teacher):
    response = teacher_api.post(f"/api/agents/{agent.pk}/memory/facts", {"text": "  每周三上实验课 "})
    assert response.status_code == 201, response.content
    fact_id = response.json()["fact"]["id"]
    fact = CoreFact.objects.get(pk=fact_id)
    assert (fact.text, fact.origin, fact.owner_id, fact.confirmed_by_id) == ("每周三上实验课", "manual", teacher.pk,
                                                                             teacher.pk)

    response = teacher_api.patch(f"/api/memory/facts/{fact_id}", {"text": "每周三下午上实验课"})
    assert response.status_code == 200 and response.json()["text"] == "每周三下午上实验课"

    assert teacher_api.delete(f"/api/memory/facts/{fact_id}").status_code == 204
    assert not CoreFact.objects.exists()
    assert teacher_api.delete(f"/api/memory/facts/{fact_id}").status_code == 404


@pytest.mark.parametrize(("text", "kind"), [
    ("家长电话 138 1234 5678", "phone"),
    ("小明期中考了85分", "score"),
    ("王同学患有哮喘", "health"),
    ("班上有三个留守儿童", "family"),
])
def test_a_hand_typed_sensitive_fact_is_refused_naming_the_kind(teacher_api, agent, teacher_actor, add_fact, text,
                                                                kind):
    response = teacher_api.post(f"/api/agents/{agent.pk}/memory/facts", {"text": text})
    assert response.status_code == 400
    body = response.json()
    assert (body["code"], body["kind"]) == ("sensitive_content", kind)
    assert text not in str(body)
    assert not CoreFact.objects.exists()

    fact = add_fact(teacher_actor, "教高二")
    response = teacher_api.patch(f"/api/memory/facts/{fact.pk}", {"text": text})
    assert (response.status_code, response.json()["kind"]) == (400, kind)
    assert CoreFact.objects.get(pk=fact.pk).text == "教高二"


def test_an_empty_or_duplicate_fact_is_refused_with_a_code(teacher_api, agent, teacher_actor, add_fact):
    response = teacher_api.post(f"/api/agents/{agent.pk}/memory/facts", {"text": "   "})
    assert (response.status_code, response.json()["code"]) == (422, "fact_empty")
    add_fact(teacher_actor, "教高二")
    other = add_fact(teacher_actor, "每周三上实验课")
    response = teacher_api.patch(f"/api/memory/facts/{other.pk}", {"text": "教高二。"})
    assert (response.status_code, response.json()["code"]) == (409, "duplicate_fact")


def test_an_api_client_scopes_memory_to_its_end_user(api, agent, school):
    response = api.post(f"/api/agents/{agent.pk}/memory/facts", {"text": "Alice 教高一", "user": "alice"})
    assert response.status_code == 201
    fact_id = response.json()["fact"]["id"]
    assert [f["id"] for f in api.get(f"/api/agents/{agent.pk}/memory", user="alice").json()["confirmed"]] == [fact_id]
    assert api.get(f"/api/agents/{agent.pk}/memory", user="bob").json()["confirmed"] == []
    assert api.get(f"/api/agents/{agent.pk}/memory").json()["confirmed"] == []
    assert api.delete(f"/api/memory/facts/{fact_id}?user=bob").status_code == 404
    assert api.patch(f"/api/memory/facts/{fact_id}", {"text": "x", "user": "bob"}).status_code == 404
    assert api.delete(f"/api/memory/facts/{fact_id}?user=alice").status_code == 204


# --- refusals: another school, another teacher, no credentials ---------------------------

@pytest.fixture
def teachers_memory(teacher, teacher_actor, make_candidate, add_fact):
    return make_candidate("教高二", owner=teacher), add_fact(teacher_actor, "每周三上实验课")


def _calls(agent, candidate, fact):
    return [
        ("get", f"/api/agents/{agent.pk}/memory", None),
        ("post", f"/api/memory/candidates/{candidate.pk}/confirm", {}),
        ("post", f"/api/memory/candidates/{candidate.pk}/confirm", {"text": "改过的"}),
        ("delete", f"/api/memory/candidates/{candidate.pk}", None),
        ("post", f"/api/agents/{agent.pk}/memory/facts", {"text": "出题偏好选择题多一些"}),
        ("patch", f"/api/memory/facts/{fact.pk}", {"text": "改过的"}),
        ("delete", f"/api/memory/facts/{fact.pk}", None),
    ]


def _call(client, method, path, body):
    if method in ("get", "delete"):
        return getattr(client, method)(path)
    return getattr(client, method)(path, body)


def _unchanged(candidate, fact):
    assert CoreCandidate.objects.filter(pk=candidate.pk, text="教高二").exists()
    assert CoreFact.objects.filter(pk=fact.pk, text="每周三上实验课").exists()


@pytest.mark.parametrize("index", range(7))
def test_another_schools_key_is_refused_on_every_endpoint(client, other_key, agent, teachers_memory, index):
    candidate, fact = teachers_memory
    method, path, body = _calls(agent, candidate, fact)[index]
    response = _call(ApiClient(client, other_key), method, path, body)
    assert response.status_code == 404, (method, path, response.content)
    assert response.json()["code"] == "not_found"
    _unchanged(candidate, fact)
    assert CoreFact.objects.count() == 1


@pytest.mark.parametrize("index", range(7))
def test_another_teacher_is_refused_on_every_endpoint(second_teacher_api, second_teacher, agent, teachers_memory,
                                                      index):
    candidate, fact = teachers_memory
    method, path, body = _calls(agent, candidate, fact)[index]
    response = _call(second_teacher_api, method, path, body)
    if path.startswith(f"/api/agents/{agent.pk}/memory"):
        # Their own (empty) memory of the same agent: nothing of the first teacher's shows.
        assert response.status_code in (200, 201)
        assert "每周三上实验课" not in str(response.json()) and "教高二" not in str(response.json())
        assert not CoreFact.objects.filter(owner=second_teacher).exclude(text="出题偏好选择题多一些").exists()
    else:
        assert response.status_code == 404, (method, path, response.content)
    _unchanged(candidate, fact)


@pytest.mark.parametrize("index", range(7))
def test_the_school_wide_api_scope_is_not_a_teachers_scope(api, agent, teachers_memory, index):
    candidate, fact = teachers_memory
    method, path, body = _calls(agent, candidate, fact)[index]
    response = _call(api, method, path, body)
    if path.startswith(f"/api/agents/{agent.pk}/memory"):
        assert "每周三上实验课" not in str(response.json()) and "教高二" not in str(response.json())
    else:
        assert response.status_code == 404
    _unchanged(candidate, fact)


@pytest.mark.parametrize("index", range(7))
def test_no_credentials_is_a_401_on_every_endpoint(client, agent, teachers_memory, index):
    candidate, fact = teachers_memory
    method, path, body = _calls(agent, candidate, fact)[index]
    response = _call(ApiClient(client, key=""), method, path, body)
    assert response.status_code == 401
    _unchanged(candidate, fact)


def test_a_school_wide_api_client_confirms_its_own_candidates(api, agent, school, make_candidate):
    candidate = make_candidate("全校统一用人教版")
    body = api.post(f"/api/memory/candidates/{candidate.pk}/confirm").json()
    assert body["fact"]["confirmed_by"] is None and body["fact"]["confirmed_via"] == "api"
    facts = CoreFact.objects.filter(Actor(tenant=school, via_api_key=True).owner_q())
    assert list(facts.values_list("text", flat=True)) == ["全校统一用人教版"]
