"""Both ends real: the production server (gunicorn) talking HTTP to llama.cpp's
OpenAI-compatible server running the SmolLM2 file, and a real django-q2 worker."""

import json

import pytest

from tests import procs

pytestmark = pytest.mark.e2e


def test_an_openai_agent_gets_a_real_reply_from_a_real_model_server(tmp_path):
    env = procs.project_env(tmp_path / "db.sqlite3")
    with procs.llama_server(tmp_path) as model_url:
        # a short answer: on a CPU each token costs; the test is about the path, not the prose
        agent_id, key = procs.bootstrap_school(env, provider="openai", base_url=model_url, model="smollm2",
                                               max_output_tokens=48)
        with procs.web_server(env, tmp_path) as base:
            headers = {"X-API-Key": key}
            status, body = procs.http_json("POST", f"{base}/api/agents/{agent_id}/run",
                                           {"input": "Write one exam question about binary trees."}, headers)
            assert status == 200, body
            assert body["status"] == "completed", body
            assert len(body["output"].strip()) > 0
            status, run = procs.http_json("GET", f"{base}/api/runs/{body['run_id']}", headers=headers)
            assert run["prompt_tokens"] > 0 and run["completion_tokens"] > 0

            events = procs.sse_request(f"{base}/api/agents/{agent_id}/run/stream",
                                       {"input": "Name two sorting algorithms.", "thread_id": body["thread_id"]},
                                       headers)
            names = [name for name, _ in events]
            assert names[0] == "started" and names[-1] == "done", names
            assert events[0][1]["thread_id"] == body["thread_id"]
            assert names.count("delta") >= 2
            assert events[-1][1]["status"] == "completed"


def test_an_unreachable_model_server_is_a_failed_run_with_a_stable_code(tmp_path):
    env = procs.project_env(tmp_path / "db.sqlite3")
    dead = f"http://127.0.0.1:{procs.free_port()}/v1"
    agent_id, key = procs.bootstrap_school(env, provider="openai", base_url=dead, model="smollm2")
    with procs.web_server(env, tmp_path) as base:
        status, body = procs.http_json("POST", f"{base}/api/agents/{agent_id}/run", {"input": "出题"},
                                       {"X-API-Key": key})
        assert status == 200
        assert body["status"] == "failed"
        assert body["error_code"] == "provider_unavailable"
        assert "Connection" not in json.dumps(body)
        events = procs.sse_request(f"{base}/api/agents/{agent_id}/run/stream", {"input": "出题"}, {"X-API-Key": key})
        assert [name for name, _ in events] == ["started", "error"]
        assert events[-1][1]["code"] == "provider_unavailable"


def test_a_real_worker_runs_the_memory_job_after_a_run_finishes(tmp_path):
    env = procs.project_env(tmp_path / "db.sqlite3")
    agent_id, key = procs.bootstrap_school(env)
    with procs.web_server(env, tmp_path) as base, procs.memory_worker(env, tmp_path):
        status, body = procs.http_json("POST", f"{base}/api/agents/{agent_id}/run", {"input": "出一份数据结构试卷"},
                                       {"X-API-Key": key})
        assert status == 200 and body["status"] == "completed"
        run_id = body["run_id"]
        code = (
            "from agents.models import Run; from django_q.models import Success;"
            f"r = Run.objects.get(pk='{run_id}');"
            f"print(bool(r.memory_done_at), Success.objects.filter(name='memory {run_id}').count())"
        )
        assert procs.wait_until(lambda: procs.django_eval(env, code) == "True 1", timeout=60)


def test_serve_runs_the_web_server_and_the_memory_worker_and_stops_both_on_ctrl_c(tmp_path):
    import signal

    env = procs.project_env(tmp_path / "db.sqlite3")
    agent_id, key = procs.bootstrap_school(env)
    port = procs.free_port()
    proc = procs.spawn([procs.PYTHON, "manage.py", "serve", "--host", "127.0.0.1", "--port", str(port),
                        "--workers", "1", "--threads", "8"], env, tmp_path / "serve.log")
    try:
        procs.wait_for_http(f"http://127.0.0.1:{port}/api/openapi.json", proc=proc)
        status, body = procs.http_json("POST", f"http://127.0.0.1:{port}/api/agents/{agent_id}/run",
                                       {"input": "出题"}, {"X-API-Key": key})
        assert status == 200 and body["status"] == "completed"
        code = f"from agents.models import Run; print(bool(Run.objects.get(pk='{body['run_id']}').memory_done_at))"
        assert procs.wait_until(lambda: procs.django_eval(env, code) == "True", timeout=60)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        procs.stop(proc)
    log = (tmp_path / "serve.log").read_text()
    assert "gunicorn" in log.lower() or "Listening at" in log
