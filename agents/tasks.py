"""Memory queue entry points. They take ids, re-fetch, and are safe to run twice."""

import logging

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
