"""The memory pipeline's invariants, checked with SQL on a child's database (SQLite file
or PostgreSQL): used by the crash and two-node end-to-end tests and bench/crash_suite.py."""

import json

from tests import procs

LAYER_STEPS = {"thread", "core", "recall", "kb"}

#: the counts that must be 0
VIOLATIONS = ["still running", "memory not done", "steps not done", "folded twice", "summary not a prefix",
              "recall entries != 1", "index docs != 1", "duplicate candidates", "extractions unfinished"]


def invariants(env) -> dict:
    q = lambda sql: procs.db_query(env, sql)  # noqa: E731
    found = {
        "runs": q("select count(*) from agents_run")[0][0],
        "still running": q("select count(*) from agents_run where status = 'running'")[0][0],
        "memory not done": q("select count(*) from agents_run where memory_done_at is null")[0][0],
    }
    bad_steps = 0
    for (steps,) in q("select memory_steps from agents_run"):
        steps = json.loads(steps) if isinstance(steps, str) else steps
        if set(steps) != LAYER_STEPS or not set(steps.values()) <= {"done", "skipped"}:
            bad_steps += 1
    found["steps not done"] = bad_steps
    # Each thread's summary covers exactly its runs up to the cursor, each folded once.
    covered: dict[str, list[str]] = {}
    for thread_id, runs in q("select thread_id, covered_runs from agents_memoryop "
                             "where kind = 'compress' and status = 'ok'"):
        runs = json.loads(runs) if isinstance(runs, str) else runs
        covered.setdefault(thread_id, []).extend(runs)
    expected: dict[str, set[str]] = {}
    for run_id, thread_id in q("select r.id, r.thread_id from agents_run r join threads_thread t "
                               "on r.thread_id = t.id where t.summary_upto_at is not null "
                               "and r.created_at <= t.summary_upto_at"):
        expected.setdefault(thread_id, set()).add(run_id)
    found["folded twice"] = sum(len(runs) - len(set(runs)) for runs in covered.values())
    found["summary not a prefix"] = sum(
        1 for thread_id in set(covered) | set(expected)
        if set(covered.get(thread_id, [])) != expected.get(thread_id, set()))
    found["compressed runs"] = sum(len(runs) for runs in expected.values())
    found["recall entries != 1"] = q(
        "select count(*) from agents_run r where r.status = 'completed' and "
        "(select count(*) from recall_recallentry e where e.run_id = r.id) != 1")[0][0]
    found["index docs != 1"] = q(
        "select count(*) from recall_recallentry e where "
        "(select count(*) from search_searchdoc d where d.ref = e.id) != 1")[0][0]
    found["duplicate candidates"] = q(
        "select count(*) from (select tenant_id, agent_id, coalesce(owner_id, 0), end_user, normalized "
        "from corememory_corecandidate group by 1, 2, 3, 4, 5 having count(*) > 1) dup")[0][0]
    found["extractions unfinished"] = q(
        "select count(*) from corememory_coreextraction where finished_at is null")[0][0] + q(
        "select count(*) from agents_run r where r.status = 'completed' and not exists "
        "(select 1 from corememory_coreextraction x where x.run_id = r.id)")[0][0]
    found["re-sent jobs"] = q("select count(*) from agents_run where memory_sweeps > 0")[0][0]
    return found


VIOLATIONS = ["still running", "memory not done", "steps not done", "folded twice", "summary not a prefix",
              "recall entries != 1", "index docs != 1", "duplicate candidates", "extractions unfinished"]


def violations(env) -> dict:
    found = invariants(env)
    return {key: found[key] for key in VIOLATIONS if found[key]}
