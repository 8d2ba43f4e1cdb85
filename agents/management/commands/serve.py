"""Serve the web app (gunicorn, threaded workers) and the memory worker (django-q2) in
the foreground until Ctrl-C. `make run` ends here."""

import os
import signal
import subprocess
import sys
import time

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Run the production web server and the memory worker together, in the foreground."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", default=os.environ.get("PORT", "8000"))
        parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_WORKERS", "2")))
        parser.add_argument("--threads", type=int, default=int(os.environ.get("WEB_THREADS", "64")))
        parser.add_argument("--no-worker", action="store_true", help="do not start the memory worker")

    def handle(self, *args, host, port, workers, threads, no_worker, **options):
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
        if not no_worker:
            _ensure_memory_sweep_schedule()
        procs = {"web": subprocess.Popen(web, env=env)}
        if not no_worker:
            procs["memory worker"] = subprocess.Popen([sys.executable, "manage.py", "qcluster"], env=env)
        self.stdout.write(f"Serving on http://{bind}/  (Ctrl-C to stop)")

        stopping = False

        def stop(*_):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        exit_code = 0
        try:
            while not stopping:
                for name, proc in procs.items():
                    if proc.poll() is not None:
                        self.stderr.write(f"{name} exited with {proc.returncode}; stopping")
                        exit_code = proc.returncode or 1
                        stopping = True
                        break
                time.sleep(0.5)
        finally:
            for proc in procs.values():
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
            deadline = time.time() + 15
            for proc in procs.values():
                try:
                    proc.wait(timeout=max(0.1, deadline - time.time()))
                except subprocess.TimeoutExpired:
                    proc.kill()
        if exit_code:
            sys.exit(exit_code)


def _ensure_memory_sweep_schedule() -> None:
    """The worker re-enqueues memory jobs that never finished (agents.tasks.memory_sweep)."""
    from django.conf import settings
    from django_q.models import Schedule

    Schedule.objects.update_or_create(
        name="memory sweep",
        defaults={"func": "agents.tasks.memory_sweep", "schedule_type": Schedule.MINUTES,
                  "minutes": settings.MEMORY_SWEEP_EVERY_MINUTES, "repeats": -1},
    )
