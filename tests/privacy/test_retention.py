"""Retention per school (Tenant.retention_days, default off): the hourly sweep erases
runs and recall entries older than the period through the same erasure path."""

from datetime import timedelta

import pytest
from django.contrib.admin.utils import quote
from django.test import Client
from django.utils import timezone
from django_q.models import Schedule

from agents.actor import Actor
from agents.models import Run, Tenant
from agents.runner import run_sync
from corememory.models import CoreCandidate
from knowledge.models import Document
from privacy.models import ErasureReceipt
from privacy.tasks import retention_sweep
from recall.models import RecallEntry
from search.models import SearchDoc
from threads.models import Thread

pytestmark = pytest.mark.django_db


def _age(run: Run, days: int) -> None:
    then = timezone.now() - timedelta(days=days)
    Run.objects.filter(pk=run.pk).update(created_at=then, finished_at=then)
    Thread.objects.filter(pk=run.thread_id).update(updated_at=then, created_at=then)
    RecallEntry.objects.filter(run=run).update(happened_at=then)


def _run(school, user, agent, memory_jobs, text, thread_id=None):
    with memory_jobs():
        return run_sync(actor=Actor(tenant=school, user=user), agent=agent, input=text, thread_id=thread_id)


def test_the_sweep_erases_what_the_schools_period_outlived_and_keeps_the_rest(
    school, teacher, archiving_agent, memory_jobs, other_school, other_teacher, other_agent
):
    Tenant.objects.filter(pk=school.pk).update(retention_days=30)
    old = _run(school, teacher, archiving_agent, memory_jobs, "旧的一次出题")
    recent = _run(school, teacher, archiving_agent, memory_jobs, "新的一次出题")
    elsewhere = _run(other_school, other_teacher, other_agent, memory_jobs, "二中的旧出题")
    _age(old, 40)
    _age(elsewhere, 400)
    old_entry = RecallEntry.objects.get(run=old).pk
    assert SearchDoc.objects.filter(ref=old_entry).exists()

    removed = retention_sweep()

    assert removed > 0
    assert set(Run.objects.values_list("pk", flat=True)) == {recent.pk, elsewhere.pk}
    assert not RecallEntry.objects.filter(run_ref=old.pk).exists()
    assert not Thread.objects.filter(pk=old.thread_id).exists()
    assert RecallEntry.objects.filter(run=recent).exists()
    assert not SearchDoc.objects.filter(ref=old_entry).exists()
    # An archived output is the school's knowledge: it stays, unlinked.
    assert Document.objects.filter(source="run:" + old.pk, source_run__isnull=True).exists()
    receipt = ErasureReceipt.objects.get()
    assert (receipt.subject_kind, receipt.requested_via, receipt.counts["runs"]) == ("retention", "retention", 1)
    assert retention_sweep() == 0 and ErasureReceipt.objects.count() == 1  # idempotent; no empty receipts


def test_retention_is_off_by_default(school, teacher, agent, memory_jobs):
    assert school.retention_days == 0
    _age(_run(school, teacher, agent, memory_jobs, "很久以前的出题"), 4000)
    assert retention_sweep() == 0
    assert Run.objects.count() == 1 and not ErasureReceipt.objects.exists()


def test_an_old_run_in_a_thread_still_in_use_goes_but_the_thread_stays(school, teacher, agent, memory_jobs,
                                                                        scripted_provider):
    Tenant.objects.filter(pk=school.pk).update(retention_days=7)
    scripted_provider.queue_replies('[{"fact": "王老师喜欢选择题", "confidence": 0.9}]', purpose="extract")
    old = _run(school, teacher, agent, memory_jobs, "上个月的出题")
    then = timezone.now() - timedelta(days=10)
    Run.objects.filter(pk=old.pk).update(created_at=then)
    RecallEntry.objects.filter(run=old).update(happened_at=then)
    _run(school, teacher, agent, memory_jobs, "今天接着出题", thread_id=old.thread_id)

    retention_sweep()

    assert Thread.objects.filter(pk=old.thread_id).exists()
    assert not Run.objects.filter(pk=old.pk).exists() and Run.objects.count() == 1
    assert not CoreCandidate.objects.filter(source_run_id=old.pk).exists()


def test_the_sweep_is_scheduled_hourly():
    schedule = Schedule.objects.get(func="privacy.tasks.retention_sweep")
    assert schedule.schedule_type == Schedule.HOURLY


def test_a_school_admin_sets_their_own_schools_retention_only(school, school_admin, other_school):
    client = Client()
    client.force_login(school_admin)
    url = f"/admin/privacy/schoolretention/{quote(school.pk)}/change/"
    response = client.post(url, {"retention_days": "180"})
    assert response.status_code == 302, response.content.decode()[:2000]
    school.refresh_from_db()
    assert school.retention_days == 180
    assert client.get(f"/admin/privacy/schoolretention/{quote(other_school.pk)}/change/").status_code in (302, 404)
    assert "第二中学" not in client.get("/admin/privacy/schoolretention/").content.decode()
