"""The erase service and `manage.py erase`: what goes, what stays, the receipt, the
queue, a dry run, and a memory job that meets an erased run."""

import json

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError
from django.utils import timezone
from django_q.models import OrmQ, Success
from django_q.signing import SignedPackage

from agents.actor import Actor
from agents.models import MemoryOp, Run
from agents.runner import run_sync
from agents.tasks import memory_job
from corememory.models import CoreCandidate, CoreFact
from privacy.models import ErasureReceipt
from privacy.services import KINDS, subject_for_end_user, subject_for_teacher, subject_hash, owner_erase
from recall.models import RecallEntry
from search.models import Posting, SearchScope
from tests.privacy.canary import new_canary, plant, planted_paths, scan
from threads.models import Thread


def _erase(capsys, *args) -> dict:
    call_command("erase", *args)
    return json.loads(capsys.readouterr().out)


def _queue_item(run_id: str) -> OrmQ:
    package = {"id": run_id, "name": f"memory {run_id}", "func": "agents.tasks.memory_job", "args": (run_id,),
               "kwargs": {}, "group": "memory"}
    return OrmQ.objects.create(key="memory", payload=SignedPackage.dumps(package))


@pytest.mark.django_db(transaction=True)
def test_a_dry_run_counts_exactly_what_the_erase_then_removes_and_changes_nothing(
    school, teacher, archiving_agent, capsys
):
    canary = new_canary()
    plant(tenant=school, agent=archiving_agent, canary=canary, user=teacher)
    before = scan(canary=canary)

    dry = _erase(capsys, "--tenant", "yizhong", "--teacher", "wang", "--dry-run")

    assert dry["dry_run"] is True and dry["receipt_id"] is None
    assert scan(canary=canary) == before
    assert not ErasureReceipt.objects.exists()
    real = _erase(capsys, "--tenant", "yizhong", "--teacher", "wang")
    assert real["counts"] == dry["counts"]
    assert set(real["counts"]) == set(KINDS)
    assert real["counts"]["runs"] == 4 and real["counts"]["facts"] == 1 and real["counts"]["candidates"] == 1
    assert real["counts"]["recall_entries"] == 5 and real["counts"]["index_postings"] > 0
    assert real["counts"]["threads"] == 1 and real["counts"]["memory_ops"] > 0


@pytest.mark.django_db(transaction=True)
def test_the_receipt_names_nobody_and_holds_no_content(school, teacher, archiving_agent, capsys):
    canary = new_canary()
    plant(tenant=school, agent=archiving_agent, canary=canary, user=teacher)

    printed = _erase(capsys, "--tenant", "yizhong", "--teacher", "wang")

    receipt = ErasureReceipt.objects.get()
    stored = json.dumps({f.attname: str(getattr(receipt, f.attname)) for f in receipt._meta.concrete_fields})
    assert "wang" not in stored and canary not in stored and "wang" not in json.dumps(printed)
    assert receipt.subject_hash == subject_hash(tenant_id=school.pk, kind="teacher", identifier="wang")
    assert receipt.subject_hash != subject_hash(tenant_id=school.pk, kind="teacher", identifier="li")
    assert printed["receipt_id"] == receipt.pk and printed["counts"] == receipt.counts
    assert receipt.requested_via == "command"


@pytest.mark.django_db
def test_it_removes_the_queue_items_and_job_results_of_the_erased_runs_only(school, teacher, second_teacher, agent):
    mine = run_sync(actor=Actor(tenant=school, user=teacher), agent=agent, input="出题")
    theirs = run_sync(actor=Actor(tenant=school, user=second_teacher), agent=agent, input="出题")
    _queue_item(mine.pk)
    kept = _queue_item(theirs.pk)

    now = timezone.now()
    for n, (run, name) in enumerate([(mine, f"memory {mine.pk}"), (mine, f"memory {mine.pk} resend 1"),
                                     (theirs, f"memory {theirs.pk}")]):
        Success.objects.create(id=f"task{n}", name=name, func="agents.tasks.memory_job", args=(run.pk,),
                               started=now, stopped=now, success=True, result="done")

    receipt = owner_erase(subject=subject_for_teacher(tenant=school, username="wang"), via="command")

    assert receipt["counts"]["queue_items"] == 1 and receipt["counts"]["task_results"] == 2
    assert list(OrmQ.objects.values_list("pk", flat=True)) == [kept.pk]
    assert list(Success.objects.values_list("name", flat=True)) == [f"memory {theirs.pk}"]


@pytest.mark.django_db
def test_a_memory_job_for_an_erased_run_does_nothing(school, teacher, agent, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as jobs:
        run = run_sync(actor=Actor(tenant=school, user=teacher), agent=agent, input="出一份试卷")
    assert jobs  # the job is waiting in the queue
    owner_erase(subject=subject_for_teacher(tenant=school, username="wang"), via="command")

    assert memory_job(run.pk) == "missing"
    for job in jobs:
        job()  # the queued delivery itself (sync in tests)
    assert not RecallEntry.objects.exists() and not Thread.objects.exists() and not MemoryOp.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_an_erase_during_a_running_memory_job_leaves_nothing_behind(school, teacher, agent, scripted_provider):
    canary = new_canary()
    subject = subject_for_teacher(tenant=school, username="wang")

    def erase_mid_extraction(messages, purpose):
        # The worker is inside the model call when the school erases the teacher.
        owner_erase(subject=subject, via="command")
        return json.dumps([{"fact": f"{canary} 喜欢选择题", "confidence": 0.9}])

    scripted_provider.queue_replies(erase_mid_extraction, purpose="extract")
    try:
        run_sync(actor=Actor(tenant=school, user=teacher), agent=agent, input=f"{canary} 出一份试卷")
    except IntegrityError:
        pass  # a late write points at the deleted run and fails; a retry finds the run "missing"

    assert scan(canary=canary) == []
    assert not CoreCandidate.objects.exists() and not Run.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_it_never_touches_an_end_user_of_the_same_id_in_another_school(
    school, other_school, archiving_agent, other_agent, api_key, other_key
):
    mine, theirs = new_canary(), new_canary()
    plant(tenant=school, agent=archiving_agent, canary=mine, end_user="s1", api_key=api_key)
    plant(tenant=other_school, agent=other_agent, canary=theirs, end_user="s1", api_key=other_key)

    owner_erase(subject=subject_for_end_user(tenant=school, end_user="s1"), via="command")

    assert scan(canary=mine) == []
    assert {"input", "typed_fact", "recall_import", "thread_summary"} <= planted_paths(canary=theirs)
    assert SearchScope.objects.filter(tenant=other_school).exists()
    assert Posting.objects.filter(term=theirs).exists()


@pytest.mark.django_db
def test_the_school_wide_scope_is_not_an_end_user(school, agent, api):
    api.run(agent, "全校共用的一次出题")
    with pytest.raises(CommandError, match="invalid_user"):
        call_command("erase", "--tenant", "yizhong", "--end-user", "  ")
    assert Run.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("args, message", [
    (["--tenant", "nope", "--teacher", "wang"], "school not found"),
    (["--tenant", "yizhong", "--teacher", "nobody"], "teacher not found"),
    (["--tenant", "erzhong", "--teacher", "wang"], "teacher not found"),
])
def test_it_refuses_a_school_or_teacher_it_does_not_know(school, other_school, teacher, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("erase", *args)
    assert not ErasureReceipt.objects.exists()


@pytest.mark.django_db
def test_it_needs_exactly_one_of_teacher_and_end_user(school, teacher):
    with pytest.raises(CommandError):
        call_command("erase", "--tenant", "yizhong")
    with pytest.raises(CommandError):
        call_command("erase", "--tenant", "yizhong", "--teacher", "wang", "--end-user", "s1")


@pytest.mark.django_db
def test_a_colleagues_facts_and_the_school_wide_memory_stay(school, teacher, second_teacher, agent, api, client):
    api.run(agent, "全校共用的一次出题")
    api.post(f"/api/agents/{agent.pk}/memory/facts", {"text": "全校统一用人教版"})
    client.force_login(second_teacher)
    client.post(f"/api/agents/{agent.pk}/memory/facts", {"text": "李老师的班级用人教版"}, content_type="application/json")
    run_sync(actor=Actor(tenant=school, user=teacher), agent=agent, input="我的一次出题")

    owner_erase(subject=subject_for_teacher(tenant=school, username="wang"), via="command")

    assert Run.objects.filter(owner__isnull=True, end_user="").count() == 1
    assert set(CoreFact.objects.values_list("text", flat=True)) == {"全校统一用人教版", "李老师的班级用人教版"}
