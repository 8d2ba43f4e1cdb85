"""Heartbeats of running runs: one daemon thread per server process refreshes
Run.heartbeat_at of every run this process is producing, every RUN_HEARTBEAT_SECONDS.

When the process dies (SIGKILL, OOM), its runs fall silent and the reconciler
(agents.tasks.memory_sweep) fails them as "abandoned" once the heartbeat is older than
RUN_ABANDONED_AFTER_SECONDS, so thread compression, which never passes a running run,
resumes within about two minutes instead of half an hour.
"""

import contextlib
import logging
import os
import threading
import time

from django.conf import settings
from django.db import connection
from django.utils import timezone

from agents.models import Run

log = logging.getLogger(__name__)

_live: dict[str, int] = {}  # run id -> how many blocks of this process produce it
_lock = threading.Lock()
_beater_pid: int | None = None


def _beat_forever() -> None:
    while True:
        time.sleep(settings.RUN_HEARTBEAT_SECONDS)
        with _lock:
            run_ids = list(_live)
        if not run_ids:
            continue
        try:
            Run.objects.filter(pk__in=run_ids, status=Run.Status.RUNNING).update(heartbeat_at=timezone.now())
        except Exception:
            log.exception("refreshing the heartbeat of %d run(s) failed", len(run_ids))
        finally:
            connection.close()  # one short connection per beat, never one held for good


def _ensure_beater() -> None:
    """Start this process's heartbeat thread (again after a fork: threads do not survive it)."""
    global _beater_pid
    if _beater_pid == os.getpid():
        return
    with _lock:
        if _beater_pid != os.getpid():
            threading.Thread(target=_beat_forever, name="run heartbeat", daemon=True).start()
            _beater_pid = os.getpid()


@contextlib.contextmanager
def beating(run_id: str):
    """Keep the run's heartbeat fresh while the block runs (the provider call, the stream)."""
    _ensure_beater()
    with _lock:
        _live[run_id] = _live.get(run_id, 0) + 1
    try:
        yield
    finally:
        with _lock:
            _live[run_id] -= 1
            if not _live[run_id]:
                del _live[run_id]
