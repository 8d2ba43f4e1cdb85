"""Erasing while the real worker runs: gunicorn and a django-q2 cluster against a database
of their own (a file SQLite one, or a fresh PostgreSQL one when the suite runs there).
An end user's runs leave memory jobs queued and in progress (memory calls are slowed);
the school's key erases them over HTTP at that moment; once the worker has drained its
queue, the canary is in no column of any table (and on SQLite in no byte of the file)."""

import json
import subprocess
import sys

import pytest

from tests import procs
from tests.privacy.canary import file_hits, new_canary

pytestmark = pytest.mark.e2e


def _scan(env, canary) -> dict:
    result = subprocess.run([sys.executable, "-m", "tests.privacy.canary", "scan", canary], cwd=procs.ROOT,
                            env={**env, "DJANGO_SETTINGS_MODULE": "memoryproj.settings"}, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_an_erase_while_the_worker_is_busy_leaves_nothing_once_the_queue_drains(tmp_path):
    db_path = tmp_path / "db.sqlite3"
    env = procs.project_env(db_path, SCRIPTED_RESPONDER="tests.privacy.slow_responder.respond", LOG_LEVEL="INFO")
    agent_id, key = procs.bootstrap_school(env)
    canary, kept = new_canary(), new_canary()
    headers = {"X-API-Key": key}
    with procs.web_server(env, tmp_path) as base, procs.memory_worker(env, tmp_path):
        run = f"{base}/api/agents/{agent_id}/run"
        thread_id = None
        for turn in range(4):
            body = {"input": f"{canary} 第{turn + 1}份试卷", "user": "s1", **({"thread_id": thread_id} if thread_id else {})}
            status, reply = procs.http_json("POST", run, body, headers)
            assert status == 200 and reply["status"] == "completed", reply
            thread_id = reply["thread_id"]
        status, body = procs.http_json("POST", f"{base}/api/agents/{agent_id}/memory/facts",
                                       {"text": f"{canary} 班级用人教版", "user": "s1"}, headers)
        assert status == 201, body
        pending = procs.db_query(env, "SELECT COUNT(*) FROM agents_run WHERE memory_done_at IS NULL")[0][0]

        status, receipt = procs.http_json("POST", f"{base}/api/privacy/erase", {"user": "s1"}, headers)

        assert status == 200, receipt
        assert receipt["counts"]["runs"] == 4 and receipt["counts"]["facts"] == 1
        # A later run for another end user is queued behind every job of s1: when its memory
        # is done, the single worker has been through all of them.
        status, sentinel = procs.http_json("POST", run, {"input": f"{kept} 另一位学生", "user": "s2"}, headers)
        assert status == 200
        procs.wait_until(lambda: procs.db_query(
            env, "SELECT memory_done_at FROM agents_run WHERE id = ?", (sentinel["run_id"],))[0][0], timeout=120)

    assert pending > 0, "the erase should meet jobs still waiting (slow memory calls)"
    assert _scan(env, canary) == {"columns": [], "paths": []}
    assert "input" in _scan(env, kept)["paths"]
    if env["DATABASE_URL"].startswith("sqlite:///"):
        assert sum(file_hits(db_path, canary).values()) == 0
