"""The memory outbox: a run's own columns are the truth about its memory work.

    memory_enqueued_at   when a job was last sent for it (the runner, then the reconciler)
    memory_lease_*       the job working on it right now: a token, since when, until when
    memory_steps         each layer's last outcome ("done", "skipped", "retry")
    memory_retry_at      a step asked to be tried again then
    memory_done_at       every step done or skipped: nothing more to do, ever

A job takes the run's lease with a conditional update (so two deliveries of one job,
or a job and its re-send, never run the same steps at once) and keeps it alive from a
small thread while it works. A SIGKILLed worker stops renewing: the lease runs out
within MEMORY_LEASE_SECONDS and the reconciler sends the job again. A lease older than
MEMORY_SWEEP_AFTER_SECONDS (above the django-q2 timeout, checked at start) is taken over
even if something still renews it: django-q2 would have stopped that job already.

Step claims (e.g. corememory's extraction claim) carry the lease token they were made
under and live exactly as long as that lease: `lease_live_until`.
"""

import contextlib
import logging
import secrets
import threading
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.db.models import F, Q
from django.utils import timezone

from agents.models import Run

log = logging.getLogger(__name__)


def lease_free_q(now: datetime) -> Q:
    """A run whose lease nobody holds: never taken, run out, or held past the hard limit."""
    hard_limit = now - timedelta(seconds=settings.MEMORY_SWEEP_AFTER_SECONDS)
    return Q(memory_lease_until__isnull=True) | Q(memory_lease_until__lt=now) | Q(memory_leased_at__lt=hard_limit)


def lease_acquire(run_id: str) -> str | None:
    """Take the run's memory lease; its token, or None when the work is done or leased."""
    now = timezone.now()
    token = secrets.token_hex(8)
    taken = Run.objects.filter(lease_free_q(now), pk=run_id, memory_done_at__isnull=True).update(
        memory_lease_token=token,
        memory_leased_at=now,
        memory_lease_until=now + timedelta(seconds=settings.MEMORY_LEASE_SECONDS),
        memory_attempts=F("memory_attempts") + 1,
    )
    return token if taken else None


def lease_renew(run_id: str, token: str) -> bool:
    until = timezone.now() + timedelta(seconds=settings.MEMORY_LEASE_SECONDS)
    return bool(Run.objects.filter(pk=run_id, memory_lease_token=token).update(memory_lease_until=until))


def lease_release(run_id: str, token: str, **fields) -> bool:
    """Give the lease back, writing `fields` (the outcome) only if we still hold it."""
    return bool(Run.objects.filter(pk=run_id, memory_lease_token=token).update(
        memory_lease_token="", memory_leased_at=None, memory_lease_until=None, **fields))


def lease_live_until(run_id: str, token: str) -> datetime | None:
    """Until when the lease `token` on the run stays live; None when it is gone."""
    if not token:
        return None
    now = timezone.now()
    row = Run.objects.filter(pk=run_id, memory_lease_token=token).values_list(
        "memory_lease_until", "memory_leased_at").first()
    if row is None or row[0] is None or row[0] <= now:
        return None
    hard_limit = row[1] + timedelta(seconds=settings.MEMORY_SWEEP_AFTER_SECONDS) if row[1] else row[0]
    return min(row[0], hard_limit) if hard_limit > now else None


@contextlib.contextmanager
def lease_kept(run_id: str, token: str):
    """Renew the lease from a daemon thread while the block runs.

    Inline mode (MEMORY_QUEUE_SYNC, the tests) runs the job inside the caller's own
    transaction, where a second connection would wait on the caller's row lock: no
    renewer there, and no other worker to race with either.
    """
    if settings.Q_CLUSTER.get("sync"):
        yield
        return
    stop = threading.Event()
    interval = max(1.0, settings.MEMORY_LEASE_SECONDS / 3)

    def renew():
        try:
            while not stop.wait(interval):
                if not lease_renew(run_id, token):
                    log.warning("memory job for %s lost its lease", run_id)
                    return
        except Exception:
            log.exception("renewing the memory lease of %s failed", run_id)
        finally:
            connection.close()

    thread = threading.Thread(target=renew, name=f"lease {run_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=interval + 5)
