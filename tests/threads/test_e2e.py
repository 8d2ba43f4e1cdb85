"""End to end: real django-q2 worker processes compressing threads against a file
database, a worker killed mid-compression, and a server restart."""

import json
import signal
import sqlite3

import pytest

from tests.procs import django_eval, http_json, memory_worker, project_env, stop, wait_until, web_server
from tests.threads.e2e_support import records

pytestmark = pytest.mark.e2e

RESPONDER = "tests.threads.e2e_support.responder"


class Site:
    """A fresh database (SQLite file, or PostgreSQL when the suite runs on it) with a
    school, a scripted agent and a key; the environment for its processes; a log dir."""

    def __init__(self, tmp_path, **env):
        self.tmp = tmp_path
        self.log = tmp_path / "calls"
        self.log.mkdir()
        self.env = project_env(tmp_path / "db.sqlite3", SCRIPTED_RESPONDER=RESPONDER, THREADS_E2E_LOG=self.log,
                               **env)
        self.agent_id, self.key = django_eval(self.env, (  # one process: migrate, then the school
            "from django.core.management import call_command; call_command('migrate', verbosity=0); "
            "from agents.services import agent_create, api_key_create, tenant_create; "
            "school = tenant_create(slug='yizhong', name='第一中学'); "
            "agent = agent_create(tenant=school, name='出题助手', provider_kind='scripted', model='scripted-zh'); "
            "print(agent.pk, api_key_create(tenant=school)[1])"
        )).split()

    def with_env(self, **extra) -> dict:
        return {**self.env, **{k: str(v) for k, v in extra.items()}}

    def shell(self, call: str) -> dict:
        return json.loads(django_eval(self.env, f"import tests.threads.e2e_support as s; s.{call}"))

    def conversations(self, plan, **kwargs) -> dict:
        return self.shell(f"conversations({self.agent_id!r}, {plan!r}, **{kwargs!r})")

    def enqueue(self, run_ids, **kwargs) -> None:
        self.shell(f"enqueue({run_ids!r}, **{kwargs!r})")

    def query(self, sql, *args):
        """Read the database the processes share (no Django in between: it is theirs)."""
        url = self.env["DATABASE_URL"]
        if url.startswith("sqlite:///"):
            with sqlite3.connect(url[len("sqlite:///"):]) as db:
                return db.execute(sql, args).fetchall()
        import psycopg

        with psycopg.connect(url.replace("postgres://", "postgresql://", 1)) as db:
            return db.execute(sql.replace("?", "%s"), args).fetchall()

    def thread(self, thread_id) -> tuple:
        return tuple(self.query("SELECT rolling_summary, summary_upto_at FROM threads_thread WHERE id = ?",
                                thread_id)[0])

    def created_at(self, run_id):
        return self.query("SELECT created_at FROM agents_run WHERE id = ?", run_id)[0][0]

    def memory_done(self, *run_ids) -> bool:
        marks = ",".join("?" * len(run_ids))
        rows = self.query(f"SELECT count(*) FROM agents_run WHERE id IN ({marks}) AND memory_done_at IS NOT NULL",
                          *run_ids)
        return rows[0][0] == len(run_ids)

    def overlapping_calls(self) -> list[tuple[dict, dict]]:
        """Pairs of compression calls in different processes that were in flight together."""
        ends = {r["call"]: r for r in records(self.log, "end")}
        calls = [(s, ends[s["call"]]) for s in records(self.log, "start") if s["call"] in ends]
        return [
            (a, b) for i, (a, a_end) in enumerate(calls) for b, b_end in calls[i + 1:]
            if a["pid"] != b["pid"] and a["t"] < b_end["t"] and b["t"] < a_end["t"]
        ]


def test_two_threads_compressed_at_once_by_two_workers_do_not_overwrite_each_other(tmp_path):
    site = Site(tmp_path, THREADS_E2E_BARRIER=1)
    made = site.conversations([[key, f"{key}{n} 第{n}轮"] for n in range(1, 6) for key in "AB"])
    last_a, last_b = made["runs"]["A"][-1], made["runs"]["B"][-1]

    with memory_worker(site.env, tmp_path, "first"):
        # Worker one starts folding thread A and waits at the barrier for a second
        # process; thread B's job can only go to worker two.
        site.enqueue([last_a], wait_started="A", absorb=2, then=[last_b])
        with memory_worker(site.env, tmp_path, "second"):
            wait_until(lambda: site.memory_done(last_a, last_b), timeout=60)

    pairs = site.overlapping_calls()
    assert any({a["thread"], b["thread"]} == {"A", "B"} for a, b in pairs), "both threads were folded at once"
    for key in "AB":
        runs = made["runs"][key]
        assert site.thread(made["threads"][key]) == (f"{key}1；{key}2；{key}3", site.created_at(runs[2]))


def test_the_same_thread_compressed_twice_at_once_loses_and_duplicates_nothing(tmp_path):
    site = Site(tmp_path, THREADS_E2E_BARRIER=1)
    made = site.conversations([["S", f"S{n} 第{n}轮"] for n in range(1, 6)])
    thread_id, runs = made["threads"]["S"], made["runs"]["S"]

    with memory_worker(site.env, tmp_path, "first"):
        # Worker one folds S1..S3 from the empty summary and waits for a second process ...
        site.enqueue([runs[-1]], wait_started="S", absorb=2)
        # ... while a sixth turn arrives, and its job (left to worker two) folds S1..S4
        # from the same base.
        runs += site.conversations([["S", "S6 第6轮"]], thread_ids={"S": thread_id}, purge=False)["runs"]["S"]
        with memory_worker(site.env, tmp_path, "second"):
            wait_until(lambda: site.memory_done(runs[4], runs[5]), timeout=60)

    assert any(a["thread"] == b["thread"] == "S" for a, b in site.overlapping_calls()), "the same thread, at once"
    # One of them lost the compare-and-set and recomputed on the winner's cursor:
    # every turn outside the window is in the summary exactly once, in order.
    assert site.thread(thread_id) == ("S1；S2；S3；S4", site.created_at(runs[3]))
    ops = site.query("SELECT count(*) FROM agents_memoryop WHERE thread_id = ? AND kind = 'compress'", thread_id)
    assert ops[0][0] >= 2


def test_a_worker_killed_mid_compression_leaves_a_state_the_next_job_completes(tmp_path):
    site = Site(tmp_path)
    made = site.conversations([["K", f"K{n} 第{n}轮"] for n in range(1, 4)])
    thread_id, runs = made["threads"]["K"], made["runs"]["K"]

    with memory_worker(site.with_env(THREADS_E2E_COMPRESS_SLEEP=120), tmp_path, "doomed") as doomed:
        site.enqueue([runs[-1]], wait_started="K")
        stop(doomed, signal.SIGKILL)
    assert site.thread(thread_id) == ("", None), "nothing half-written: the cursor did not move"
    assert not site.memory_done(runs[-1])

    with memory_worker(site.env, tmp_path, "next"):
        # The next run's job (enqueued as usual) catches up.
        runs += site.conversations([["K", "K4 第4轮"]], thread_ids={"K": thread_id}, purge=False)["runs"]["K"]
        wait_until(lambda: site.memory_done(runs[-1]), timeout=60)

    assert site.thread(thread_id) == ("K1；K2", site.created_at(runs[1]))


def test_a_server_restart_loses_no_thread_and_the_conversation_is_restored(tmp_path):
    site = Site(tmp_path)
    headers = {"X-API-Key": site.key}
    with web_server(site.env, tmp_path) as base:
        status, first = http_json("POST", f"{base}/api/agents/{site.agent_id}/run", {"input": "出一份数据结构试卷"},
                                  headers)
        assert status == 200, first
        status, second = http_json("POST", f"{base}/api/agents/{site.agent_id}/run",
                                   {"input": "简答题换两道", "thread_id": first["thread_id"]}, headers)
        assert status == 200, second

    with web_server(site.env, tmp_path) as base:
        status, threads = http_json("GET", f"{base}/api/agents/{site.agent_id}/threads", headers=headers)
        assert status == 200
        assert [(t["id"], t["run_count"]) for t in threads["items"]] == [(first["thread_id"], 2)]
        status, runs = http_json("GET", f"{base}/api/threads/{first['thread_id']}/runs", headers=headers)
        assert [(r["input"], r["output"]) for r in runs["items"]] == [
            ("出一份数据结构试卷", first["output"]), ("简答题换两道", second["output"])]

        status, third = http_json("POST", f"{base}/api/agents/{site.agent_id}/run",
                                  {"input": "给出答案", "thread_id": first["thread_id"]}, headers)
        assert status == 200 and third["thread_id"] == first["thread_id"]
        status, context = http_json("GET", f"{base}/api/runs/{third['run_id']}/context", headers=headers)
        prompt = context["messages"][-1]["content"]
        assert "‹用户›\n┆出一份数据结构试卷" in prompt and "‹用户›\n┆简答题换两道" in prompt
        assert f"[用户问题 ⟦{context['fence_nonce']}⟧]\n给出答案" in prompt
