"""Extraction under the memory job lease: a claim another job holds is retried after
it runs out, never dropped; a dead job's claim is taken over at once."""

from datetime import timedelta

from django.utils import timezone

from agents.models import Run
from agents.tasks import memory_job, memory_sweep
from corememory.models import CoreCandidate, CoreExtraction
from recall.models import RecallEntry

PREFERENCE = "我教高二数学，出题请用人教版。"
FACT = '[{"fact": "教高二数学", "confidence": 0.9}]'


def test_a_step_found_claimed_is_retried_after_the_claim_not_dropped(teacher_api, agent, extract_replies, settings):
    run_id = teacher_api.run(agent, PREFERENCE).json()["run_id"]  # its job not run yet
    # Another worker, outside any lease, claimed the extraction a moment ago.
    claimed_at = timezone.now()
    CoreExtraction.objects.create(run_id=run_id, claimed_at=claimed_at)
    assert memory_job(run_id) == "retry"
    run = Run.objects.get(pk=run_id)
    assert run.memory_done_at is None, "a half-done job is not marked done"
    assert run.memory_steps == {"thread": "done", "core": "retry", "kb": "skipped", "recall": "done"}
    assert run.memory_retry_at == claimed_at + timedelta(seconds=settings.Q_CLUSTER["timeout"])
    assert memory_sweep()["resent"] == 0, "not before the claim runs out"

    # The claimant died: its claim runs out, the reconciler sends the job again.
    CoreExtraction.objects.filter(run_id=run_id).update(
        claimed_at=timezone.now() - timedelta(seconds=settings.Q_CLUSTER["timeout"] + 1))
    Run.objects.filter(pk=run_id).update(memory_retry_at=timezone.now())
    extract_replies(FACT)
    assert memory_sweep()["resent"] == 1  # the queue is inline in tests: the job ran
    run = Run.objects.get(pk=run_id)
    assert run.memory_done_at is not None
    assert run.memory_steps["core"] == "done"
    assert list(CoreCandidate.objects.values_list("text", flat=True)) == ["教高二数学"]
    assert RecallEntry.objects.filter(run_id=run_id).count() == 1, "done steps are not run again"


def test_a_claim_made_under_a_dead_jobs_lease_is_taken_over_at_once(teacher_api, agent, extract_replies):
    run_id = teacher_api.run(agent, PREFERENCE).json()["run_id"]
    # A job took the lease, claimed the extraction and was SIGKILLed; its lease ran out.
    Run.objects.filter(pk=run_id).update(memory_lease_token="deadbeef", memory_leased_at=timezone.now(),
                                         memory_lease_until=timezone.now() - timedelta(seconds=1))
    CoreExtraction.objects.create(run_id=run_id, claimed_at=timezone.now(), lease_token="deadbeef")
    extract_replies(FACT)
    assert memory_job(run_id) == "done"
    assert CoreExtraction.objects.get(run_id=run_id).outcome == CoreExtraction.Outcome.PROPOSED
    assert CoreCandidate.objects.count() == 1
