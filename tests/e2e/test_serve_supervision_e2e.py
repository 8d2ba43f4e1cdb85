"""`manage.py serve` supervises: a killed memory worker is restarted while the web server
keeps answering, and SIGTERM stops everything within a bounded time."""

import os
import re
import signal
import time
from pathlib import Path

import pytest

from tests import procs

pytestmark = pytest.mark.e2e


def _worker_pids(log_path) -> list[int]:
    return [int(pid) for pid in re.findall(r"memory worker started \(pid (\d+)\)", log_path.read_text())]


def _alive(pid: int) -> bool:
    """Whether any process of the group `pid` still runs. A member killed a moment ago can
    linger as a zombie until init reaps it: that one is dead, though kill(0) still finds it."""
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return False
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone while we looked
        state, pgrp = fields[0], int(fields[2])
        if pgrp == pid and state not in ("Z", "X"):
            return True
    return False


def test_serve_keeps_the_web_up_when_the_worker_is_killed_restarts_it_and_stops_in_bounded_time(tmp_path):
    env = procs.project_env(tmp_path / "db.sqlite3", MEMORY_RECONCILE_SECONDS="2", MEMORY_RESEND_AFTER_SECONDS="3",
                            MEMORY_LEASE_SECONDS="6", SERVE_STOP_GRACE="10")
    agent_id, key = procs.bootstrap_school(env)
    port = procs.free_port()
    base = f"http://127.0.0.1:{port}"
    log_path = tmp_path / "serve.log"
    serve = procs.spawn([procs.PYTHON, "manage.py", "serve", "--host", "127.0.0.1", "--port", str(port),
                         "--workers", "1", "--threads", "8"], env, log_path)
    try:
        procs.wait_for_http(f"{base}/api/openapi.json", proc=serve)
        first = procs.wait_until(lambda: _worker_pids(log_path), timeout=30)[0]
        web_pid = int(re.search(r"web started \(pid (\d+)\)", log_path.read_text()).group(1))

        os.killpg(first, signal.SIGKILL)  # the whole cluster: sentinel, pusher, monitor, workers
        statuses = []
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline:  # the web server answers all along
            status, body = procs.http_json("POST", f"{base}/api/agents/{agent_id}/run", {"input": "出题"},
                                           {"X-API-Key": key})
            statuses.append((status, body.get("status")))
        assert set(statuses) == {(200, "completed")}, statuses
        assert serve.poll() is None and _alive(web_pid)

        second = procs.wait_until(lambda: _worker_pids(log_path)[1:], timeout=30)[0]
        assert second != first and not _alive(first)
        assert "memory worker (pid %d) exited" % first in log_path.read_text()
        # The restarted worker (and the reconciler, for jobs the dead one held) finish every run.
        procs.wait_until(lambda: procs.db_query(
            env, "select count(*) from agents_run where memory_done_at is null")[0][0] == 0, timeout=90, interval=1)
        assert procs.db_query(env, "select count(*) from agents_run")[0][0] == len(statuses)

        started = time.monotonic()
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=40) == 0
        assert time.monotonic() - started < 30
        assert not _alive(second) and not _alive(web_pid), "no child outlives serve"
    finally:
        procs.stop(serve)
