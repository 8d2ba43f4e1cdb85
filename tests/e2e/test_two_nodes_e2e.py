"""Two nodes (simulated on one machine): two `manage.py serve` processes on different
ports, each a web server, a memory worker cluster and a reconciler, sharing one database
and one broker (PostgreSQL and Redis when the suite runs with DATABASE_URL/REDIS_URL).
A conversation hops between the nodes turn by turn, one node's worker is SIGKILLed
mid-way, and every invariant of the memory pipeline still holds."""

import concurrent.futures
import os
import re
import signal
import time

import pytest

from tests import procs
from tests.memory_invariants import invariants, violations

pytestmark = pytest.mark.e2e

RESPONDER = "tests.e2e.slow_memory_responder.respond"


def _serve(env, tmp_path, name):
    port = procs.free_port()
    proc = procs.spawn([procs.PYTHON, "manage.py", "serve", "--host", "127.0.0.1", "--port", str(port),
                        "--workers", "1", "--threads", "16"], env, tmp_path / f"{name}.log")
    base = f"http://127.0.0.1:{port}"
    procs.wait_for_http(f"{base}/api/openapi.json", proc=proc)
    return proc, base


def test_two_nodes_share_the_memory_work_and_survive_a_killed_worker(tmp_path):
    env = procs.project_env(tmp_path / "db.sqlite3", SCRIPTED_RESPONDER=RESPONDER, SLOW_EXTRACT_SECONDS="0.3",
                            MEMORY_RECONCILE_SECONDS="3", MEMORY_RESEND_AFTER_SECONDS="5", MEMORY_LEASE_SECONDS="6",
                            SERVE_STOP_GRACE="10")
    agent_id, key = procs.bootstrap_school(env)
    headers = {"X-API-Key": key}
    node_a, base_a = _serve(env, tmp_path, "node-a")
    node_b, base_b = _serve(env, tmp_path, "node-b")
    try:
        def conversation(index):
            thread_id, served = None, []
            for turn in range(4):
                base = (base_a, base_b)[(index + turn) % 2]  # every turn on the other node
                body = {"input": f"第{index}组第{turn}题", **({"thread_id": thread_id} if thread_id else {})}
                if turn % 2:
                    events = procs.sse_request(f"{base}/api/agents/{agent_id}/run/stream", body, headers)
                    assert events[-1][0] == "done", events
                    thread_id = events[0][1]["thread_id"]
                else:
                    status, reply = procs.http_json("POST", f"{base}/api/agents/{agent_id}/run", body, headers)
                    assert status == 200 and reply["status"] == "completed", reply
                    thread_id = reply["thread_id"]
                served.append(base)
            return served

        with concurrent.futures.ThreadPoolExecutor(6) as pool:
            running = [pool.submit(conversation, index) for index in range(6)]
            # Mid-way, node A's worker cluster dies; its serve restarts it.
            worker = int(procs.wait_until(lambda: re.search(r"memory worker started \(pid (\d+)\)",
                                                            (tmp_path / "node-a.log").read_text())).group(1))
            procs.wait_until(lambda: procs.db_query(env, "select count(*) from agents_run")[0][0] >= 8, timeout=60)
            os.killpg(worker, signal.SIGKILL)
            served = [base for future in running for base in future.result()]
        assert served.count(base_a) == served.count(base_b) == 12

        def settled():
            return procs.db_query(env, "select count(*) from agents_run "
                                       "where status = 'running' or memory_done_at is null")[0][0] == 0

        procs.wait_until(settled, timeout=120, interval=1)
        assert violations(env) == {}
        found = invariants(env)
        assert found["runs"] == 24 and found["compressed runs"] == 6 * 2
        # Every run proposed the same fact once: one candidate, seen by all 24 extractions.
        assert procs.db_query(env, "select count(*), max(seen_count) from corememory_corecandidate") == [(1, 24)]
        assert "memory worker (pid %d) exited" % worker in (tmp_path / "node-a.log").read_text()

        started = time.monotonic()
        for node in (node_a, node_b):
            node.send_signal(signal.SIGTERM)
        assert node_a.wait(timeout=40) == 0 and node_b.wait(timeout=40) == 0
        assert time.monotonic() - started < 30
    finally:
        procs.stop(node_a)
        procs.stop(node_b)
