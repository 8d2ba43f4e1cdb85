"""Memory queue entry points. They take ids, re-fetch, and are safe to run twice.

Delivery: at least once on every deployment, because the outbox (agents/outbox.py) is
the source of truth and the broker only carries messages. We measured both brokers
(bench/crash_suite.py; README "Delivery guarantees"): django-q2's Redis broker pops a
job and never acknowledges it, so a SIGKILLed cluster loses what it held; its ORM
broker acknowledges, but redelivers only after `retry` (12 minutes by default, and it
must exceed the job timeout). Neither meets "recovered within 2 minutes" alone. So
each job leases its run, and the reconciler below re-sends, within about a minute:

- a job whose lease ran out (its worker died while working),
- a job sent MEMORY_RESEND_AFTER_SECONDS ago that never started (lost in transit),
- a job whose step asked to be retried (a live claim, a failed model call), at the
  time the step named.

A re-send that finds the work done or leased exits at once, so duplicates (the ORM
broker's own redelivery included) cost a query. Redis stays the default broker when
REDIS_URL is set: fast, no polling of PostgreSQL.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from agents.layers import FINAL_OUTCOMES, RETRY, StepResult, layers_in_write_order
from agents.models import Run
from agents.outbox import lease_free_q, lease_acquire, lease_kept, lease_release

log = logging.getLogger(__name__)


def memory_job(run_id: str) -> str:
    """Run each layer's write-path step for one finished run, in write order.

    Steps already done or skipped for this run are not run again. memory_done_at is
    set only when every step is done or skipped; a step that must be retried leaves
    the run to the reconciler, at the time it asked for. Returns "done", "retry",
    "leased" (another job holds the run), "missing" or "unfinished".
    """
    run = Run.objects.select_related("agent", "agent__tenant", "thread", "owner").filter(pk=run_id).first()
    if run is None:
        log.info("memory job for missing run %s: nothing to do", run_id)
        return "missing"
    if run.memory_done_at is not None:
        return "done"
    if not run.is_finished:
        log.warning("memory job for unfinished run %s: skipped", run_id)
        return "unfinished"
    token = lease_acquire(run_id)
    if token is None:
        done = Run.objects.filter(pk=run_id, memory_done_at__isnull=False).exists()
        return "done" if done else "leased"
    run.memory_lease_token = token
    steps = dict(run.memory_steps or {})
    retry_at = None
    with lease_kept(run_id, token):
        for layer in layers_in_write_order():
            if steps.get(layer.name) in FINAL_OUTCOMES:
                continue
            result = _run_step(layer, run)
            steps[layer.name] = result.outcome
            if result.outcome == RETRY:
                retry_at = min(retry_at or result.retry_at, result.retry_at)
            # Each outcome is stored as it happens: a crash later does not repeat this step.
            Run.objects.filter(pk=run_id, memory_lease_token=token).update(memory_steps=steps)
    if retry_at is None:
        lease_release(run_id, token, memory_steps=steps, memory_done_at=timezone.now(), memory_retry_at=None)
        return "done"
    lease_release(run_id, token, memory_steps=steps, memory_retry_at=retry_at)
    log.info("memory job for %s: %s retried at %s", run_id,
             ",".join(name for name, outcome in steps.items() if outcome == RETRY), retry_at.isoformat())
    return "retry"


def _run_step(layer, run) -> StepResult:
    """One layer's step; an exception is a retry later, and the other steps still run."""
    try:
        result = layer.after_run(run)
    except Exception:
        log.exception("memory step %s for run %s failed", layer.name, run.pk)
        return StepResult.retry_soon(note="error")
    return result if result is not None else StepResult.done()


def memory_sweep() -> dict:
    """The reconciler: fail abandoned runs and re-send memory jobs that will not finish
    by themselves. Scheduled every minute on the cluster and run every
    MEMORY_RECONCILE_SECONDS by `serve`; several at once are safe (conditional updates).
    Returns how many runs it abandoned and re-sent."""
    from agents.runner import run_finish

    now = timezone.now()
    # A running run whose heartbeat stopped lost its server process (killed mid-stream,
    # OOM). Fail it, so thread compression, which never passes an unfinished run, moves on.
    silent = now - timedelta(seconds=settings.RUN_ABANDONED_AFTER_SECONDS)
    abandoned = 0
    for run in Run.objects.filter(status=Run.Status.RUNNING, heartbeat_at__lt=silent)[:500]:
        run_finish(run=run, error_code="abandoned")  # conditional on status=running; enqueues its job
        abandoned += 1
    unsent = now - timedelta(seconds=settings.MEMORY_RESEND_AFTER_SECONDS)
    due = (
        Q(memory_retry_at__lte=now)  # a step asked for another try
        # never sent (the process died between commit and send), or sent and never started
        | Q(memory_retry_at__isnull=True, memory_leased_at__isnull=True, finished_at__lt=unsent)
        & (Q(memory_enqueued_at__isnull=True) | Q(memory_enqueued_at__lt=unsent))
        # a job took the lease and stopped renewing it: its worker died
        | Q(memory_retry_at__isnull=True, memory_leased_at__isnull=False)
    )
    todo = (
        Run.objects.filter(lease_free_q(now), due, status__in=Run.FINISHED,
                           memory_done_at__isnull=True, memory_attempts__lt=settings.MEMORY_SWEEP_MAX)
        .values_list("pk", "memory_sweeps")[:500]
    )
    resent = 0
    for run_id, sweeps in todo:
        # Claim the re-send with a conditional update: two reconcilers never both send it.
        # Clearing the dead lease and the retry time makes the run "sent, not started"
        # until a job takes it, so a lost re-send is itself re-sent after the same delay.
        claimed = Run.objects.filter(lease_free_q(now), pk=run_id, memory_sweeps=sweeps,
                                     memory_done_at__isnull=True).update(
            memory_sweeps=sweeps + 1, memory_enqueued_at=now, memory_retry_at=None,
            memory_lease_token="", memory_leased_at=None, memory_lease_until=None)
        if claimed:
            memory_job_send(run_id, note=f"resend {sweeps + 1}")
            resent += 1
    if abandoned or resent:
        log.info("memory reconciler: %d run(s) abandoned, %d job(s) re-sent", abandoned, resent)
    return {"abandoned": abandoned, "resent": resent}


def memory_job_send(run_id: str, *, note: str = "") -> None:
    from django_q.tasks import async_task

    name = f"memory {run_id}" + (f" {note}" if note else "")
    async_task("agents.tasks.memory_job", run_id, task_name=name, group="memory")
