"""Memory queue entry points. They take ids, re-fetch, and are safe to run twice."""

import logging
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from agents.layers import layers_in_write_order
from agents.models import Run

log = logging.getLogger(__name__)


def memory_job(run_id: str) -> str:
    """Run each layer's write-path step for one finished run, in write order.

    django-q2 delivers at least once: every after_run is idempotent, and a crash
    between steps is repaired by the retry or by the next run's job.
    """
    run = Run.objects.select_related("agent", "agent__tenant", "thread", "owner").filter(pk=run_id).first()
    if run is None:
        log.info("memory job for missing run %s: nothing to do", run_id)
        return "missing"
    if not run.is_finished:
        log.warning("memory job for unfinished run %s: skipped", run_id)
        return "unfinished"
    for layer in layers_in_write_order():
        layer.after_run(run)
    Run.objects.filter(pk=run_id).update(memory_done_at=timezone.now())
    return "done"


def memory_sweep() -> int:
    """Re-enqueue memory jobs that never finished: a lost enqueue, a worker that died past
    its retries, a run whose job was never claimed. Scheduled every few minutes; each run
    is swept at most MEMORY_SWEEP_MAX times, so a run that always fails stops coming back."""
    from django_q.tasks import async_task

    from agents.runner import run_finish

    now = timezone.now()
    # A run still "running" long after any reply could have ended lost its server
    # process (killed mid-stream, OOM). Fail it, so thread compression, which never
    # passes an unfinished run, can move on.
    abandoned = now - timedelta(seconds=settings.RUN_ABANDONED_AFTER_SECONDS)
    for run in Run.objects.filter(status=Run.Status.RUNNING, created_at__lt=abandoned)[:500]:
        run_finish(run=run, error_code="abandoned")  # conditional on status=running; enqueues its job
    stale = now - timedelta(seconds=settings.MEMORY_SWEEP_AFTER_SECONDS)
    candidates = (
        Run.objects.filter(status__in=Run.FINISHED, memory_done_at__isnull=True,
                           memory_sweeps__lt=settings.MEMORY_SWEEP_MAX, finished_at__lt=stale)
        .filter(Q(memory_enqueued_at__isnull=True) | Q(memory_enqueued_at__lt=stale))
        .values_list("pk", "memory_sweeps")[:500]
    )
    swept = 0
    for run_id, sweeps in candidates:
        # Claim with a conditional update: two sweepers never enqueue the same run twice.
        claimed = Run.objects.filter(pk=run_id, memory_sweeps=sweeps, memory_done_at__isnull=True).update(
            memory_sweeps=sweeps + 1, memory_enqueued_at=now
        )
        if claimed:
            async_task("agents.tasks.memory_job", run_id, task_name=f"memory {run_id} sweep {sweeps + 1}",
                       group="memory")
            swept += 1
    if swept:
        log.info("memory sweep re-enqueued %d run(s)", swept)
    return swept
