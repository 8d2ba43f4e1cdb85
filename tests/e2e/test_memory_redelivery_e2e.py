"""A memory job whose worker is SIGKILLed mid-work is sent again and finished by another
worker, every step exactly once: real gunicorn, real django-q2 clusters, and, when the
suite runs with DATABASE_URL/REDIS_URL, PostgreSQL with the Redis broker (which never
acknowledges: the outbox and the reconciler are what bring the job back)."""

import json
import signal
import time

import pytest

from tests import procs

pytestmark = pytest.mark.e2e

RESPONDER = "tests.e2e.slow_memory_responder.respond"


def _reconcile(env) -> str:
    return procs.django_eval(env, "from agents.tasks import memory_sweep; print(memory_sweep())")


def test_a_job_killed_mid_extraction_is_re_sent_and_finished_once_by_another_worker(tmp_path):
    env = procs.project_env(tmp_path / "db.sqlite3", SCRIPTED_RESPONDER=RESPONDER, SLOW_EXTRACT_SECONDS="60",
                            MEMORY_LEASE_SECONDS="6", MEMORY_RESEND_AFTER_SECONDS="5")
    agent_id, key = procs.bootstrap_school(env)
    with procs.web_server(env, tmp_path) as base:
        with procs.memory_worker(env, tmp_path, "doomed") as doomed:
            status, body = procs.http_json("POST", f"{base}/api/agents/{agent_id}/run",
                                           {"input": "我教高二数学，出一份试卷"}, {"X-API-Key": key})
            assert status == 200 and body["status"] == "completed", body
            run_id = body["run_id"]
            # The job is inside its extraction (a claim under its lease) when the cluster dies.
            procs.wait_until(lambda: procs.db_query(
                env, "select count(*) from corememory_coreextraction where run_id = ? and finished_at is null",
                (run_id,))[0][0] == 1, timeout=60)
            procs.stop(doomed, signal.SIGKILL)
        killed_at = time.monotonic()
        assert procs.db_query(env, "select memory_done_at from agents_run where id = ?", (run_id,))[0][0] is None

        fast = {**env, "SLOW_EXTRACT_SECONDS": "0"}
        with procs.memory_worker(fast, tmp_path, "survivor"):
            def done():
                _reconcile(fast)
                return procs.db_query(env, "select memory_done_at from agents_run where id = ?", (run_id,))[0][0]

            procs.wait_until(done, timeout=90, interval=1)
        recovered_after = time.monotonic() - killed_at

    steps, attempts, sweeps = procs.db_query(
        env, "select memory_steps, memory_attempts, memory_sweeps from agents_run where id = ?", (run_id,))[0]
    steps = json.loads(steps) if isinstance(steps, str) else steps
    assert steps["core"] == "done" and set(steps.values()) <= {"done", "skipped"}, steps
    assert attempts == 2 and sweeps >= 1
    assert procs.db_query(env, "select outcome from corememory_coreextraction where run_id = ?",
                          (run_id,)) == [("proposed",)]
    assert procs.db_query(env, "select count(*) from recall_recallentry where run_id = ?", (run_id,)) == [(1,)]
    assert procs.db_query(env, "select count(*), max(seen_count) from corememory_corecandidate") == [(1, 1)]
    assert recovered_after < 60, f"recovered after {recovered_after:.0f} s"
