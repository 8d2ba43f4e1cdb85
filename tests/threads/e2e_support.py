"""Code that runs inside the child processes of the end-to-end thread tests.

`responder` is the scripted provider's responder there (SCRIPTED_RESPONDER): chat
replies are instant; each compression call leaves a start and an end record in
$THREADS_E2E_LOG, can wait at a barrier until a call from another process has
started (so two workers are provably compressing at once), and can sleep (so a
test can kill a worker in the middle of one).

The driver functions are run with `manage.py shell -c` against the test's database
(SQLite file or PostgreSQL, ORM or Redis broker: see tests.procs.project_env); they
print JSON for the test to read.
"""

import json
import os
import time
import uuid
from pathlib import Path

from agents.providers.scripted import default_responder
from tests.threads.helpers import read_compression

BARRIER_TIMEOUT = 30.0


def _log_dir() -> Path:
    return Path(os.environ["THREADS_E2E_LOG"])


def _record(kind: str, **fields) -> None:
    record = {"kind": kind, "pid": os.getpid(), "t": time.time(), **fields}
    path = _log_dir() / f"{kind}-{os.getpid()}-{uuid.uuid4().hex}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record))
    tmp.rename(path)  # readers never see half a record


def records(log_dir: Path, kind: str) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(Path(log_dir).glob(f"{kind}-*.json"))]


def responder(messages, purpose):
    text = messages[-1]["content"]
    if purpose == "chat":
        return "收到：" + text.rsplit("\n", 1)[-1]
    if purpose != "compress":
        return default_responder(messages, purpose)  # other layers' memory work
    previous, asked = read_compression(text)
    turns = [request.split(" ", 1)[0] for request in asked or []]
    call = uuid.uuid4().hex
    _record("start", call=call, thread=turns[0][0] if turns else "", turns=turns)
    if os.environ.get("THREADS_E2E_BARRIER") == "1":
        deadline = time.time() + BARRIER_TIMEOUT
        while time.time() < deadline and not any(r["pid"] != os.getpid() for r in records(_log_dir(), "start")):
            time.sleep(0.05)
    time.sleep(float(os.environ.get("THREADS_E2E_COMPRESS_SLEEP", "0")))
    summary = "；".join(part for part in [previous, *turns] if part)
    _record("end", call=call, summary=summary)
    return summary


# --- driver (run in `manage.py shell -c`) -----------------------------------------------


def conversations(agent_id: str, plan: list[list[str]], thread_ids: dict | None = None, purge: bool = True) -> None:
    """Run `plan` ([thread key, text] in order) through the runner; print thread and run ids.

    With `purge`, the memory jobs those runs enqueued are dropped, so the test decides
    which jobs run and when.
    """
    from django_q.brokers import get_broker

    from agents.actor import Actor
    from agents.models import Agent
    from agents.runner import run_sync

    agent = Agent.objects.select_related("tenant").get(pk=agent_id)
    actor = Actor(tenant=agent.tenant, via_api_key=True)
    threads, runs = dict(thread_ids or {}), {}
    for key, text in plan:
        run = run_sync(actor=actor, agent=agent, input=text, thread_id=threads.get(key))
        assert run.status == "completed", run.error_code
        threads[key] = run.thread_id
        runs.setdefault(key, []).append(run.pk)
    if purge:
        get_broker().purge_queue()
    print(json.dumps({"threads": threads, "runs": runs}))


def enqueue(run_ids: list[str], wait_started: str = "", absorb: int = 0, then: list[str] = ()) -> None:
    """Enqueue memory jobs. Optionally wait until a compression of thread `wait_started`
    has started, then enqueue `absorb` no-op jobs and wait until the busy cluster has
    claimed them: its worker is busy, its queue and its pusher's hand are full, so the
    jobs enqueued after that (`then`) can only go to another worker process."""
    from django_q.brokers import get_broker
    from django_q.tasks import async_task

    for run_id in run_ids:
        async_task("agents.tasks.memory_job", run_id, group="memory")
    if wait_started:
        _wait(lambda: any(r["thread"] == wait_started for r in records(_log_dir(), "start")))
    for n in range(absorb):
        async_task("agents.tasks.memory_job", f"run_noop{n}", group="memory")
    if absorb:
        broker = get_broker()
        _wait(lambda: broker.queue_size() == 0)  # every job claimed (ORM) or popped (Redis)
    for run_id in then:
        async_task("agents.tasks.memory_job", run_id, group="memory")
    print(json.dumps({"enqueued": [*run_ids, *then]}))


def _wait(predicate, timeout: float = 30.0) -> None:
    deadline = time.time() + timeout
    while not predicate():
        if time.time() > deadline:
            raise TimeoutError("condition not met in time")
        time.sleep(0.05)
