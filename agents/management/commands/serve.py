"""Serve the web app (gunicorn, threaded workers) and the memory worker (django-q2) in
the foreground until Ctrl-C or SIGTERM. `make run` ends here.

This process is a small supervisor:
- each child runs in a process group of its own, so a signal or a kill reaches all of
  its processes and nothing else;
- a child that exits is restarted with backoff (1 s, doubling to 30 s; back to 1 s
  once it stayed up a minute), and the other one keeps running: a dead memory worker
  never takes the web server, and its in-flight SSE streams, down with it;
- every MEMORY_RECONCILE_SECONDS it runs the memory reconciler (agents.tasks.memory_sweep),
  so lost memory jobs are re-sent and abandoned runs failed within about a minute;
- on SIGTERM or Ctrl-C it asks both children to stop, waits SERVE_STOP_GRACE seconds,
  then SIGKILLs whatever is left of their process groups (django-q2 can hang on
  "waiting for monitor" after a worker was replaced): a bounded stop, always.
"""

import logging
import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import connection

log = logging.getLogger("serve")

BACKOFF_FIRST, BACKOFF_MAX, HEALTHY_AFTER = 1.0, 30.0, 60.0


class Child:
    """One supervised process (and its process group)."""

    def __init__(self, name: str, argv: list[str], env: dict):
        self.name, self.argv, self.env = name, argv, env
        self.proc: subprocess.Popen | None = None
        self.started_at = 0.0
        self.backoff = BACKOFF_FIRST
        self.start_at = 0.0  # when to (re)start it
        self.restarts = 0

    def start(self) -> None:
        self.proc = subprocess.Popen(self.argv, env=self.env, start_new_session=True)
        self.started_at = time.monotonic()
        log.info("%s started (pid %d)", self.name, self.proc.pid)

    def check(self, now: float) -> None:
        """Start it when due; notice an exit and schedule the restart."""
        if self.proc is None:
            if now >= self.start_at:
                self.start()
            return
        code = self.proc.poll()
        if code is None:
            return
        self._kill_group()  # whatever the leader left behind
        if now - self.started_at >= HEALTHY_AFTER:
            self.backoff = BACKOFF_FIRST
        self.restarts += 1
        log.warning("%s (pid %d) exited with %s; restarting in %.0f s (restart %d)", self.name, self.proc.pid, code,
                    self.backoff, self.restarts)
        self.proc, self.start_at = None, now + self.backoff
        self.backoff = min(BACKOFF_MAX, self.backoff * 2)

    def terminate(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            # To the leader only: gunicorn's master and django-q2's sentinel stop their own
            # children in order (sent to the whole group, django-q2's sentinel hangs).
            self.proc.send_signal(signal.SIGTERM)

    def wait(self, deadline: float) -> None:
        if self.proc is None:
            return
        try:
            self.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            log.warning("%s (pid %d) did not stop in time: killed", self.name, self.proc.pid)
        self._kill_group()
        self.proc.wait()

    def _kill_group(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class Command(BaseCommand):
    help = "Run the production web server and the memory worker together, in the foreground."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", default=os.environ.get("PORT", "8000"))
        parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_WORKERS", "2")))
        parser.add_argument("--threads", type=int, default=int(os.environ.get("WEB_THREADS", "64")))
        parser.add_argument("--no-worker", action="store_true", help="do not start the memory worker")
        parser.add_argument("--stop-grace", type=float, default=float(os.environ.get("SERVE_STOP_GRACE", "20")),
                            help="seconds the children get to stop before they are killed")

    def handle(self, *args, host, port, workers, threads, no_worker, stop_grace, **options):
        env = os.environ.copy()
        bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        # Threaded workers: a streaming reply holds a thread, not a process, so dozens of
        # SSE streams from a slow provider are served beside ordinary API calls.
        web = [
            sys.executable, "-m", "gunicorn", "memoryproj.wsgi:application",
            "--bind", bind,
            "--worker-class", "gthread",
            "--workers", str(workers),
            "--threads", str(threads),
            "--timeout", os.environ.get("WEB_TIMEOUT", "300"),
            "--graceful-timeout", "10",
            "--access-logfile", "-",
            # gunicorn's control socket sits at one fixed path per user; several servers
            # on one machine (tests, a second checkout) would fight over it.
            "--no-control-socket",
        ]
        children = [Child("web", web, env)]
        if not no_worker:
            _ensure_memory_sweep_schedule()
            children.append(Child("memory worker", [sys.executable, "manage.py", "qcluster"], env))
        for child in children:
            child.start()
        self.stdout.write(f"Serving on http://{bind}/  (Ctrl-C to stop)")
        self.stdout.flush()

        stopping = False

        def stop(*_):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        next_reconcile = time.monotonic() + settings.MEMORY_RECONCILE_SECONDS
        try:
            while not stopping:
                now = time.monotonic()
                for child in children:
                    child.check(now)
                if not no_worker and now >= next_reconcile:
                    next_reconcile = now + settings.MEMORY_RECONCILE_SECONDS
                    _reconcile()
                time.sleep(0.25)
        finally:
            log.info("stopping (grace %.0f s)", stop_grace)
            for child in children:
                child.terminate()
            deadline = time.monotonic() + stop_grace
            for child in children:
                child.wait(deadline)
            log.info("stopped")


def _reconcile() -> None:
    from agents.tasks import memory_sweep

    try:
        memory_sweep()
    except Exception:
        log.exception("the memory reconciler failed; trying again next round")
    finally:
        connection.close()


def _ensure_memory_sweep_schedule() -> None:
    """The cluster also runs the reconciler on a schedule (for nodes started without serve)."""
    from django_q.models import Schedule

    Schedule.objects.update_or_create(
        name="memory sweep",
        defaults={"func": "agents.tasks.memory_sweep", "schedule_type": Schedule.MINUTES,
                  "minutes": settings.MEMORY_SWEEP_EVERY_MINUTES, "repeats": -1},
    )
    connection.close()
