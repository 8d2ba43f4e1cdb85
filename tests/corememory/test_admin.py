"""The Django admin for school admins: candidates with filters and bulk confirm/delete
(through the same services), editable facts behind the red line, scoped to the school."""

from datetime import timedelta

import pytest
from django.contrib.admin.utils import quote
from django.contrib.messages import get_messages
from django.utils import timezone

from agents.actor import Actor
from agents.services import teacher_create
from corememory.models import CoreCandidate, CoreFact

CANDIDATES = "/admin/corememory/corecandidate/"
FACTS = "/admin/corememory/corefact/"


@pytest.fixture
def other_school_admin(other_school):
    return teacher_create(tenant=other_school, username="sun", password="pw-sun-123", role="school_admin",
                          is_staff=True)


@pytest.fixture
def admin_client(client, school_admin):
    client.force_login(school_admin)
    return client


@pytest.fixture
def both_schools(agent, other_agent, teacher, other_teacher, make_candidate):
    ours = make_candidate("出题偏好选择题多一些", owner=teacher, confidence=0.9)
    theirs = make_candidate("二中老师偏好填空题", owner=other_teacher, confidence=0.9, for_agent=other_agent)
    return ours, theirs


def texts(response) -> str:
    return response.content.decode()


def flash(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_a_school_admin_sees_only_their_schools_candidates(admin_client, both_schools, other_agent):
    ours, theirs = both_schools
    response = admin_client.get(CANDIDATES)
    assert response.status_code == 200
    assert ours.text in texts(response)
    assert theirs.text not in texts(response)
    assert other_agent.name not in texts(response)  # not even as a filter choice
    detail = admin_client.get(f"{CANDIDATES}{ours.pk}/change/")
    assert detail.status_code == 200 and ours.text in texts(detail) and 'name="text"' not in texts(detail)
    assert admin_client.get(f"{CANDIDATES}{theirs.pk}/change/").status_code in (302, 404)


def test_another_schools_admin_can_neither_see_nor_confirm_nor_delete_our_candidates(
        client, other_school_admin, both_schools):
    ours, theirs = both_schools
    client.force_login(other_school_admin)
    assert ours.text not in texts(client.get(CANDIDATES))
    for action in ("confirm_candidates", "delete_candidates"):
        client.post(CANDIDATES, {"action": action, "post": "yes", "_selected_action": [ours.pk]}, follow=True)
    assert CoreCandidate.objects.filter(pk=ours.pk).exists()
    assert not CoreFact.objects.filter(tenant=ours.tenant).exists()


def test_bulk_confirm_calls_the_service_and_reports_the_count(admin_client, school_admin, teacher, make_candidate):
    first = make_candidate("教高二", owner=teacher)
    second = make_candidate("每周三上实验课", owner=teacher)
    response = admin_client.post(CANDIDATES, {"action": "confirm_candidates", "post": "yes", "_selected_action": [first.pk, second.pk]},
                                 follow=True)
    assert any("已确认 2 条候选事实" in m for m in flash(response))
    facts = CoreFact.objects.filter(owner=teacher)
    assert sorted(facts.values_list("text", flat=True)) == ["教高二", "每周三上实验课"]
    assert set(facts.values_list("confirmed_by", "confirmed_via")) == {(school_admin.pk, "admin")}
    assert not CoreCandidate.objects.exists()


def test_bulk_confirm_says_what_was_evicted_and_what_was_refused(admin_client, teacher, make_candidate, add_fact):
    actor = Actor(tenant=teacher.tenant, user=teacher)
    facts = [add_fact(actor, f"偏好{i}号题型") for i in range(30)]
    CoreFact.objects.filter(pk=facts[0].pk).update(last_used=timezone.now() - timedelta(days=3))
    fine = make_candidate("教高二", owner=teacher)
    # A candidate stored before the term list knew this word.
    sensitive = make_candidate("王同学患有哮喘", owner=teacher)
    response = admin_client.post(CANDIDATES, {"action": "confirm_candidates", "post": "yes",
                                              "_selected_action": [fine.pk, sensitive.pk]}, follow=True)
    messages = " ".join(flash(response))
    assert "已确认 1 条候选事实" in messages
    assert "淘汰了最久未用的 1 条" in messages and "偏好0号题型" in messages
    assert "1 条含敏感个人信息" in messages and "健康状况" in messages and "哮喘" not in messages
    assert CoreFact.objects.filter(owner=teacher).count() == 30
    assert CoreCandidate.objects.filter(pk=sensitive.pk).exists()


def test_bulk_delete_reports_the_count(admin_client, teacher, make_candidate):
    candidates = [make_candidate(f"偏好{i}", owner=teacher) for i in range(3)]
    response = admin_client.post(CANDIDATES, {"action": "delete_candidates", "post": "yes",
                                              "_selected_action": [c.pk for c in candidates[:2]]}, follow=True)
    assert any("已删除 2 条候选事实" in m for m in flash(response))
    assert list(CoreCandidate.objects.values_list("pk", flat=True)) == [candidates[2].pk]


def test_candidates_filter_by_agent_owner_confidence_and_age(admin_client, agent, en_agent, teacher, second_teacher,
                                                             make_candidate):
    make_candidate("甲 高置信", owner=teacher, confidence=0.9)
    make_candidate("乙 低置信", owner=second_teacher, confidence=0.3)
    make_candidate("丙 英文助手", owner=teacher, confidence=0.6, for_agent=en_agent)
    old = make_candidate("丁 很久以前", owner=teacher, confidence=0.6)
    CoreCandidate.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=40))

    def shown(**params):
        body = texts(admin_client.get(CANDIDATES, params))
        return {t for t in ("甲 高置信", "乙 低置信", "丙 英文助手", "丁 很久以前") if t in body}

    assert shown(confidence="high") == {"甲 高置信"}
    assert shown(confidence="low") == {"乙 低置信"}
    assert shown(agent=en_agent.pk) == {"丙 英文助手"}
    assert shown(owner=f"u:{second_teacher.pk}") == {"乙 低置信"}
    assert shown(age="older30") == {"丁 很久以前"}
    assert shown(age="7d") == {"甲 高置信", "乙 低置信", "丙 英文助手"}


def test_a_fact_is_editable_and_the_edit_passes_the_red_line(admin_client, teacher, add_fact):
    fact = add_fact(Actor(tenant=teacher.tenant, user=teacher), "教高二")
    url = f"{FACTS}{fact.pk}/change/"
    page = admin_client.get(url)
    assert page.status_code == 200 and 'name="text"' in texts(page)

    response = admin_client.post(url, {"text": "教高二，张三数学92"})
    assert response.status_code == 200  # the form again, with the error
    assert "成绩或排名" in texts(response)
    assert CoreFact.objects.get(pk=fact.pk).text == "教高二"

    response = admin_client.post(url, {"text": "教高二和高三"})
    assert response.status_code == 302
    assert CoreFact.objects.get(pk=fact.pk).text == "教高二和高三"


def test_a_facts_source_run_is_a_read_only_link(admin_client, api, agent, teacher, make_candidate):
    from agents.models import Run
    from corememory import services

    run = Run.objects.get(pk=api.run(agent, "我教高二").json()["run_id"])
    candidate = make_candidate("教高二", owner=teacher, run=run)
    fact = services.candidate_confirm(tenant=teacher.tenant, candidate=candidate).fact
    page = texts(admin_client.get(f"{FACTS}{quote(fact.pk)}/change/"))
    # admin-quoted: "run_41…" unquoted would open "runA…"
    assert f'href="/admin/agents/run/{quote(run.pk)}/change/"' in page
    assert 'name="source_run"' not in page


def test_another_schools_admin_cannot_see_or_edit_our_facts(client, other_school_admin, teacher, add_fact):
    fact = add_fact(Actor(tenant=teacher.tenant, user=teacher), "教高二")
    client.force_login(other_school_admin)
    assert fact.text not in texts(client.get(FACTS))
    assert client.get(f"{FACTS}{fact.pk}/change/").status_code in (302, 404)
    client.post(f"{FACTS}{fact.pk}/change/", {"text": "被改了"})
    client.post(f"{FACTS}{fact.pk}/delete/", {"post": "yes"})
    client.post(FACTS, {"action": "delete_facts", "post": "yes", "_selected_action": [fact.pk]})
    assert CoreFact.objects.get(pk=fact.pk).text == "教高二"


def test_a_school_admin_can_delete_a_fact(admin_client, teacher, add_fact):
    fact = add_fact(Actor(tenant=teacher.tenant, user=teacher), "教高二")
    response = admin_client.post(FACTS, {"action": "delete_facts", "post": "yes", "_selected_action": [fact.pk]}, follow=True)
    assert any("已删除 1 条事实" in m for m in flash(response))
    assert not CoreFact.objects.exists()


def test_a_teacher_without_staff_rights_gets_no_admin(client, teacher, both_schools):
    client.force_login(teacher)
    response = client.get(CANDIDATES)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_a_superuser_sees_every_school(client, both_schools, django_user_model):
    root = django_user_model.objects.create_superuser("root", "root@example.com", "pw-root-123")
    client.force_login(root)
    body = texts(client.get(CANDIDATES))
    assert all(c.text in body for c in both_schools)
    response = client.post(CANDIDATES, {"action": "confirm_candidates", "post": "yes",
                                        "_selected_action": [c.pk for c in both_schools]}, follow=True)
    assert any("已确认 2 条候选事实" in m for m in flash(response))
    assert set(CoreFact.objects.values_list("tenant__slug", flat=True)) == {"yizhong", "erzhong"}
