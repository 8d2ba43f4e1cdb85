"""The trimmed admin a school admin gets: memory operations with totals and the memory
queue's task lists, each narrowed to the admin's own school."""

from decimal import Decimal

from django.contrib.admin.utils import quote
from django.test import Client
from django.utils import timezone
from django_q.models import Failure, Success

from agents.models import MemoryOp, Run
from agents.services import teacher_create
from threads.models import Thread


def a_run(agent, owner=None) -> Run:
    thread = Thread.objects.create(tenant=agent.tenant, agent=agent, owner=owner)
    return Run.objects.create(tenant=agent.tenant, agent=agent, thread=thread, owner=owner, input="x",
                              status="completed")


def a_task(run, *, success=True):
    now = timezone.now()
    return (Success if success else Failure).objects.create(
        id=run.pk[-20:] + ("ok" if success else "ko"), name=f"memory {run.pk}", func="agents.tasks.memory_job",
        args=(run.pk,), started=now, stopped=now, success=success, result="done" if success else "boom")


def admin_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_school_admin_sees_memory_operation_totals_of_their_school(school_admin, agent, other_agent):
    for cost in ("0.0100", "0.0250"):
        MemoryOp.objects.create(tenant=agent.tenant, agent=agent, kind="compress", cost=Decimal(cost),
                                input_tokens=1000, output_tokens=100)
    MemoryOp.objects.create(tenant=other_agent.tenant, agent=other_agent, kind="compress", cost=Decimal("9"),
                            input_tokens=99999, output_tokens=99999)
    html = admin_client(school_admin).get("/admin/agents/memoryop/").content.decode()
    assert "合计（当前筛选）" in html
    assert "输入 2000 token · 输出 200 token · 费用 0.0350" in html
    assert "99999" not in html


def test_a_school_admin_sees_the_memory_queue_of_their_school_only(school_admin, agent, other_agent):
    mine, theirs = a_run(agent), a_run(other_agent)
    a_task(mine), a_task(theirs)
    a_task(mine, success=False), a_task(theirs, success=False)
    client = admin_client(school_admin)
    index = client.get("/admin/").content.decode()
    assert "/admin/django_q/success/" in index and "/admin/django_q/failure/" in index
    for path in ("/admin/django_q/success/", "/admin/django_q/failure/"):
        html = client.get(path).content.decode()
        assert mine.pk in html  # the job's run, linked
        assert theirs.pk not in html
        # Looking only: no resubmit action, no delete.
        assert "resubmit_task" not in html and "delete_selected" not in html
    other_task = Success.objects.get(name=f"memory {theirs.pk}")
    assert client.get(f"/admin/django_q/success/{quote(other_task.pk)}/change/").status_code in (302, 404)


def test_schedules_and_queued_tasks_stay_with_superusers(school_admin):
    client = admin_client(school_admin)
    assert client.get("/admin/django_q/schedule/").status_code == 403
    index = client.get("/admin/").content.decode()
    assert "/admin/django_q/schedule/" not in index and "/admin/django_q/ormq/" not in index


def test_a_teacher_without_staff_rights_gets_no_admin(teacher):
    response = admin_client(teacher).get("/admin/django_q/success/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_a_staff_teacher_who_is_not_a_school_admin_sees_no_tasks(school, agent):
    staff = teacher_create(tenant=school, username="staffer", password="pw-staff-123", is_staff=True)
    a_task(a_run(agent))
    assert admin_client(staff).get("/admin/django_q/success/").status_code == 403


def test_a_school_admins_index_holds_the_memory_work_of_their_school(school_admin, agent):
    html = admin_client(school_admin).get("/admin/").content.decode()
    for path in ("/admin/threads/thread/", "/admin/agents/run/", "/admin/agents/memoryop/",
                 "/admin/django_q/success/", "/admin/django_q/failure/"):
        assert f'href="{path}"' in html, path
    # Schools and people are managed by the superuser, not by a school admin.
    assert 'href="/admin/agents/tenant/"' not in html and 'href="/admin/agents/user/"' not in html
