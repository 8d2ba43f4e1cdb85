"""Crash suite for the memory pipeline (issue 11). A script, not a unit test: it starts
real processes (gunicorn, two django-q2 clusters, the reconciler), crashes them on
purpose, then checks the invariants with SQL and prints one line per scenario and broker.

    (a) 200 concurrent runs over 20 threads (half streamed), 2 worker clusters
    (b) 15 SIGKILLs (one cluster, or every cluster at once) during 100 runs
    (c) SIGKILL of the web server during 10 SSE streams (bench/slow_openai_server.py)
    (d) SIGTERM of the clusters with a full queue, then a restart

Run against PostgreSQL, with and without Redis as the broker (each scenario gets a fresh
database):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/crash_suite.py [--scenarios a,b,c,d] [--brokers redis,orm]

The model is the scripted provider (tests/e2e/slow_memory_responder.py: memory calls
take a little while, so kills land mid-job) or, for (c), the slow OpenAI-compatible
server. The timings are the production defaults (lease 30 s, re-send after 45 s, the
reconciler every 15 s, abandoned after 60 s of silence) unless the environment says
otherwise. Exit status 1 when an invariant fails.
"""

import argparse
import concurrent.futures
import http.client
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import procs  # noqa: E402
from tests.memory_invariants import VIOLATIONS, invariants  # noqa: E402

RESPONDER = "tests.e2e.slow_memory_responder.respond"


# --- processes ------------------------------------------------------------------------

class Proc:
    """A process group we can SIGKILL, SIGTERM and start again."""

    def __init__(self, name: str, argv: list[str], env: dict, tmp: Path):
        self.name, self.argv, self.env, self.tmp = name, argv, env, tmp
        self.proc: subprocess.Popen | None = None

    def start(self):
        self.proc = procs.spawn(self.argv, self.env, self.tmp / f"{self.name}.log")
        return self

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()

    def term(self, grace: float = 20) -> float:
        """SIGTERM to the leader; SIGKILL the group after `grace`. Returns the seconds it took."""
        started = time.monotonic()
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        return time.monotonic() - started


def web(env, tmp, name="web") -> Proc:
    port = procs.free_port()
    proc = Proc(name, [procs.PYTHON, "-m", "gunicorn", "memoryproj.wsgi:application", "--bind", f"127.0.0.1:{port}",
                       "--worker-class", "gthread", "--workers", "2", "--threads", "24", "--timeout", "120",
                       "--no-control-socket"], env, tmp)
    proc.base = f"http://127.0.0.1:{port}"
    proc.start()
    procs.wait_for_http(f"{proc.base}/api/openapi.json", proc=proc.proc)
    return proc


def cluster(env, tmp, name) -> Proc:
    return Proc(name, [procs.PYTHON, "manage.py", "qcluster"], env, tmp).start()


def reconciler(env, tmp) -> Proc:
    every = os.environ.get("MEMORY_RECONCILE_SECONDS", "15")
    return Proc("reconciler", [procs.PYTHON, "manage.py", "reconcile_memory", "--every", every], env, tmp).start()


# --- clients ----------------------------------------------------------------------------

class Client:
    """Runs conversations against the web server and counts what came back."""

    def __init__(self, base: str, agent_id: str, key: str):
        self.base, self.agent_id, self.headers = base, agent_id, {"X-API-Key": key}
        self.statuses: list[int] = []
        self.errors = 0  # connection refused / reset (the server was killed)
        self.lock = threading.Lock()

    def _note(self, status=None, error=False):
        with self.lock:
            if error:
                self.errors += 1
            if status is not None:
                self.statuses.append(status)

    def run(self, text: str, thread_id: str | None, stream: bool) -> str | None:
        body = {"input": text, **({"thread_id": thread_id} if thread_id else {})}
        try:
            if stream:
                events = procs.sse_request(f"{self.base}/api/agents/{self.agent_id}/run/stream", body, self.headers,
                                           timeout=120)
                # A stream cut by a dying server may end without an error: no final event.
                self._note(200, error=not events or events[-1][0] not in ("done", "error"))
                started = [data for name, data in events if name == "started"]
                return started[0]["thread_id"] if started else thread_id
            status, reply = procs.http_json("POST", f"{self.base}/api/agents/{self.agent_id}/run", body,
                                            self.headers, timeout=120)
            self._note(status)
            return reply.get("thread_id", thread_id) if isinstance(reply, dict) else thread_id
        except urllib.error.HTTPError as exc:
            self._note(exc.code)
        except (OSError, ValueError, http.client.HTTPException):
            self._note(error=True)
        return thread_id

    def conversation(self, index: int, turns: int, pause: float = 0.0) -> None:
        thread_id = None
        for turn in range(turns):
            thread_id = self.run(f"第{index}组第{turn}题：出一道二叉树的题", thread_id, stream=(index + turn) % 2 == 0)
            if pause:
                time.sleep(pause)

    def conversations(self, threads: int, turns: int, pause: float = 0.0) -> None:
        with concurrent.futures.ThreadPoolExecutor(threads) as pool:
            list(pool.map(lambda i: self.conversation(i, turns, pause), range(threads)))

    @property
    def server_errors(self) -> int:
        return sum(1 for status in self.statuses if status >= 500)


class UpWatch:
    """Polls the web server twice a second; counts the polls it refused (down) apart from
    the ones it answered too slowly (a busy 2-core machine)."""

    def __init__(self, base: str):
        self.base, self.failed, self.slow, self.polls = base, 0, 0, 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        while not self.stop.wait(0.5):
            self.polls += 1
            try:
                urllib.request.urlopen(f"{self.base}/api/openapi.json", timeout=5).read()
            except TimeoutError:
                self.slow += 1
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, TimeoutError):
                    self.slow += 1
                else:
                    self.failed += 1
            except Exception:
                self.failed += 1

    def close(self):
        self.stop.set()
        self.thread.join()


# --- the invariants, in SQL ---------------------------------------------------------------

def _ts(value) -> float | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.timestamp()


def wait_settled(env, timeout: float) -> float:
    """Seconds until no run is running and every run's memory is done (or the timeout)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        open_runs = procs.db_query(
            env, "select count(*) from agents_run where status = 'running' or memory_done_at is null")[0][0]
        if open_runs == 0:
            break
        time.sleep(1)
    return time.monotonic() - started


def recovery_bound(env, kills: list[float]) -> float:
    """For each re-sent run, memory_done_at minus the first kill after its run finished:
    an upper bound of how long its lost job took to come back. The largest, in seconds."""
    worst = 0.0
    rows = procs.db_query(env, "select finished_at, memory_done_at from agents_run where memory_sweeps > 0 "
                               "or memory_attempts > 1")
    for finished, done in rows:
        finished, done = _ts(finished), _ts(done)
        if done is None:
            continue
        after = [k for k in kills if k >= finished - 1 and k <= done]
        if after:
            worst = max(worst, done - after[0])
    return worst


# --- scenarios ----------------------------------------------------------------------------

def fresh(tmp: Path, broker: str, **extra) -> dict:
    env = procs.project_env(tmp / "db.sqlite3", SCRIPTED_RESPONDER=RESPONDER, MEMORY_WORKERS="1",
                            SLOW_EXTRACT_SECONDS=os.environ.get("SLOW_EXTRACT_SECONDS", "0.2"),
                            SLOW_COMPRESS_SECONDS=os.environ.get("SLOW_COMPRESS_SECONDS", "0.2"), **extra)
    if broker == "orm":
        env.pop("REDIS_URL", None)
    elif not env.get("REDIS_URL"):
        raise SystemExit("the redis broker needs REDIS_URL")
    return env


def scenario_a(tmp, broker) -> dict:
    env = fresh(tmp, broker)
    agent_id, key = procs.bootstrap_school(env)
    server = web(env, tmp)
    workers = [cluster(env, tmp, "cluster-1"), cluster(env, tmp, "cluster-2")]
    sweeper = reconciler(env, tmp)
    watch = UpWatch(server.base)
    client = Client(server.base, agent_id, key)
    started = time.monotonic()
    try:
        client.conversations(threads=20, turns=10)
        runs_done = time.monotonic() - started
        settle = wait_settled(env, 300)
        return {"runs in (s)": round(runs_done, 1), "memory drained after (s)": round(settle, 1),
                "5xx": client.server_errors, "conn errors": client.errors, "web down polls": watch.failed, "web slow polls": watch.slow,
                **invariants(env)}
    finally:
        watch.close()
        for proc in [sweeper, *workers, server]:
            proc.kill()


def scenario_b(tmp, broker) -> dict:
    env = fresh(tmp, broker)
    agent_id, key = procs.bootstrap_school(env)
    server = web(env, tmp)
    workers = [cluster(env, tmp, "cluster-1"), cluster(env, tmp, "cluster-2")]
    sweeper = reconciler(env, tmp)
    watch = UpWatch(server.base)
    client = Client(server.base, agent_id, key)
    kills: list[float] = []
    rng = random.Random(11)

    def killer():
        for index in range(15):
            time.sleep(rng.uniform(1.5, 3.0))
            targets = workers if index % 3 == 2 else [rng.choice(workers)]  # every third: the whole tier
            for proc in targets:
                proc.kill()
            kills.append(time.time())
            time.sleep(1.0)  # a supervisor's first backoff
            for proc in targets:
                proc.start()

    killing = threading.Thread(target=killer)
    try:
        killing.start()
        client.conversations(threads=20, turns=5, pause=0.5)
        killing.join()
        last_kill = time.monotonic()
        settle = wait_settled(env, 400)
        return {"kills": len(kills), "settled after last kill (s)": round(settle, 1),
                "max recovery (s)": round(recovery_bound(env, kills), 1), "5xx": client.server_errors,
                "conn errors": client.errors, "web down polls": watch.failed, "web slow polls": watch.slow, **invariants(env)}
    finally:
        watch.close()
        for proc in [sweeper, *workers, server]:
            proc.kill()


def scenario_c(tmp, broker) -> dict:
    slow_port = procs.free_port()
    slow = Proc("slow-model", [procs.PYTHON, "bench/slow_openai_server.py", "--port", str(slow_port), "--chunks", "30",
                               "--delay", "0.3"], os.environ.copy(), tmp).start()
    procs.wait_for_http(f"http://127.0.0.1:{slow_port}/v1/models", proc=slow.proc)
    env = fresh(tmp, broker)
    agent_id, key = procs.bootstrap_school(env, provider="openai", base_url=f"http://127.0.0.1:{slow_port}/v1",
                                           model="slow")
    server = web(env, tmp)
    workers = [cluster(env, tmp, "cluster-1"), cluster(env, tmp, "cluster-2")]
    sweeper = reconciler(env, tmp)
    client = Client(server.base, agent_id, key)
    try:
        streams = [threading.Thread(target=client.run, args=(f"流{i}：出一道题", None, True)) for i in range(10)]
        for stream in streams:
            stream.start()
        procs.wait_until(lambda: procs.db_query(
            env, "select count(*) from agents_run where status = 'running'")[0][0] == 10, timeout=30)
        time.sleep(2)  # mid-stream
        server.kill()
        killed = time.monotonic()
        for stream in streams:
            stream.join()
        server.start()
        procs.wait_for_http(f"{server.base}/api/openapi.json", proc=server.proc)
        settle = wait_settled(env, 300)
        abandoned = procs.db_query(env, "select count(*) from agents_run where error_code = 'abandoned'")[0][0]
        return {"streams cut": client.errors, "abandoned": abandoned,
                "finished + memory done after kill (s)": round(time.monotonic() - killed, 1),
                "settle wait (s)": round(settle, 1), "5xx": client.server_errors, **invariants(env)}
    finally:
        for proc in [sweeper, *workers, server, slow]:
            proc.kill()


def scenario_d(tmp, broker) -> dict:
    env = fresh(tmp, broker)
    agent_id, key = procs.bootstrap_school(env)
    server = web(env, tmp)
    client = Client(server.base, agent_id, key)
    workers: list[Proc] = []
    sweeper = None
    try:
        client.conversations(threads=20, turns=4)  # no worker yet: the queue fills up
        queued = procs.db_query(env, "select count(*) from agents_run where memory_done_at is null")[0][0]
        workers = [cluster(env, tmp, "cluster-1"), cluster(env, tmp, "cluster-2")]
        sweeper = reconciler(env, tmp)
        time.sleep(4)  # mid-drain
        stop_times = [proc.term(grace=20) for proc in workers]
        left = procs.db_query(env, "select count(*) from agents_run where memory_done_at is null")[0][0]
        restarted = time.monotonic()
        for proc in workers:
            proc.start()
        settle = wait_settled(env, 300)
        return {"queued": queued, "left at SIGTERM": left, "SIGTERM stop (s)": round(max(stop_times), 1),
                "drained after restart (s)": round(time.monotonic() - restarted, 1), "settle wait (s)":
                round(settle, 1), "5xx": client.server_errors, **invariants(env)}
    finally:
        for proc in [sweeper, *workers, server]:
            if proc is not None:
                proc.kill()


SCENARIOS = {"a": scenario_a, "b": scenario_b, "c": scenario_c, "d": scenario_d}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenarios", default="a,b,c,d")
    parser.add_argument("--brokers", default="redis,orm")
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        print("note: without a PostgreSQL DATABASE_URL the suite runs on SQLite files (slower, one writer)")
    failed = False
    for name in args.scenarios.split(","):
        for broker in args.brokers.split(","):
            with tempfile.TemporaryDirectory(prefix=f"crash-{name}-{broker}-") as tmp:
                started = time.monotonic()
                result = SCENARIOS[name](Path(tmp), broker)
                broken = {key: result[key] for key in VIOLATIONS if result.get(key)}
                if result.get("5xx"):
                    broken["5xx"] = result["5xx"]
                if result.get("web down polls"):
                    broken["web down polls"] = result["web down polls"]
                failed |= bool(broken)
                verdict = "OK" if not broken else f"FAILED {broken}"
                shown = {k: v for k, v in result.items() if k not in VIOLATIONS or v}
                print(f"({name}) {broker:5} {verdict}  in {time.monotonic() - started:.0f} s  "
                      + "  ".join(f"{k}={v}" for k, v in shown.items()), flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
