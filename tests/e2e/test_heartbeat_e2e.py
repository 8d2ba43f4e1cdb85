"""Heartbeats on a real server: a stream that outlives the abandon threshold stays alive
because its process keeps beating; a stream whose web server is SIGKILLed falls silent and
the reconciler fails its run as `abandoned`, so the thread's memory moves on."""

import os
import signal
import threading
import time

import pytest

from tests import procs

pytestmark = pytest.mark.e2e


def test_a_live_stream_keeps_beating_and_a_killed_servers_run_is_abandoned(tmp_path):
    model_port = procs.free_port()
    model = procs.spawn([procs.PYTHON, "bench/slow_openai_server.py", "--port", str(model_port), "--chunks", "16",
                         "--delay", "0.5"], os.environ.copy(), tmp_path / "slow-model.log")
    env = procs.project_env(tmp_path / "db.sqlite3", RUN_HEARTBEAT_SECONDS="1", RUN_ABANDONED_AFTER_SECONDS="4")
    try:
        procs.wait_for_http(f"http://127.0.0.1:{model_port}/v1/models", proc=model)
        agent_id, key = procs.bootstrap_school(env, provider="openai", base_url=f"http://127.0.0.1:{model_port}/v1",
                                               model="slow")
        url_of = lambda base: f"{base}/api/agents/{agent_id}/run/stream"  # noqa: E731
        reconciler = procs.spawn([procs.PYTHON, "manage.py", "reconcile_memory", "--every", "1"], env,
                                 tmp_path / "reconciler.log")
        worker = procs.spawn([procs.PYTHON, "manage.py", "qcluster"], env, tmp_path / "qcluster.log")
        try:
            with procs.web_server(env, tmp_path) as base:
                started = time.monotonic()
                events = procs.sse_request(url_of(base), {"input": "出一道题"}, {"X-API-Key": key})
                assert time.monotonic() - started > 6, "the stream outlived the abandon threshold"
                assert events[-1] == ("done", {"run_id": events[0][1]["run_id"], "status": "completed"})

            port = procs.free_port()
            web = procs.spawn([procs.PYTHON, "-m", "gunicorn", "memoryproj.wsgi:application", "--bind",
                               f"127.0.0.1:{port}", "--worker-class", "gthread", "--workers", "1", "--threads", "8",
                               "--no-control-socket"], env, tmp_path / "doomed-web.log")
            base = f"http://127.0.0.1:{port}"
            procs.wait_for_http(f"{base}/api/openapi.json", proc=web)
            cut = threading.Thread(target=lambda: procs.sse_request(url_of(base), {"input": "再出一道"},
                                                                    {"X-API-Key": key}), daemon=True)
            cut.start()
            procs.wait_until(lambda: procs.db_query(
                env, "select count(*) from agents_run where status = 'running'")[0][0] == 1, timeout=30)
            time.sleep(1.5)
            procs.stop(web, signal.SIGKILL)
            killed = time.monotonic()
            procs.wait_until(lambda: procs.db_query(
                env, "select count(*) from agents_run where error_code = 'abandoned' and memory_done_at is not null"
            )[0][0] == 1, timeout=60, interval=0.5)
            assert time.monotonic() - killed < 30
            assert procs.db_query(env, "select status, output from agents_run where error_code = 'abandoned'") == [
                ("failed", "")]
        finally:
            procs.stop(worker)
            procs.stop(reconciler)
    finally:
        procs.stop(model)
