"""Runs finishing at the same moment lose no recall entry and no index update: a real
server, a real django-q2 cluster with several workers, a file database."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.procs import db_query, http_json, manage, memory_worker, project_env, wait_until, web_server

RUNS = 24


@pytest.mark.e2e
def test_many_runs_finishing_at_once_lose_no_entry_and_no_index_update(tmp_path):
    db = tmp_path / "db.sqlite3"
    env = project_env(db, MEMORY_WORKERS=3, ALLOW_SCRIPTED_PROVIDER=1)
    manage(env, "migrate", "--noinput")
    manage(env, "create_tenant", "yizhong")
    agent_id = manage(env, "create_agent", "--tenant", "yizhong", "--name", "出题助手", "--provider", "scripted",
                      "--model", "scripted-zh")
    key = manage(env, "create_api_key", "--tenant", "yizhong")
    headers = {"X-API-Key": key}

    def run(i):
        return http_json("POST", f"{base}/api/agents/{agent_id}/run",
                         {"input": f"第{i}章数据结构练习：二叉树的遍历与查找"}, headers)

    def finished_jobs():
        return db_query(env, "select count(*) from agents_run where memory_done_at is not null")[0][0]

    with web_server(env, tmp_path) as base, memory_worker(env, tmp_path):
        with ThreadPoolExecutor(RUNS) as pool:
            replies = list(pool.map(run, range(RUNS)))
        assert [status for status, _ in replies] == [200] * RUNS
        assert {body["status"] for _, body in replies} == {"completed"}
        wait_until(lambda: finished_jobs() == RUNS, timeout=60)

        # The next run finds the history through the index the workers built.
        status, body = run(RUNS)
        status, context = http_json("GET", f"{base}/api/runs/{body['run_id']}/context", None, headers)
        recall = [s for s in context["sections"] if s["layer"] == "recall"]
        assert len(recall) == 1 and len(recall[0]["items"]) == 3

    run_ids = {body["run_id"] for _, body in replies}
    entries = dict(db_query(env, "select id, run_ref from recall_recallentry"))
    assert set(entries.values()) >= run_ids
    assert len(entries) == len(set(entries.values()))  # one per run
    scope = db_query(env, "select id, version, doc_count, total_length from search_searchscope "
                          "where key like 'recall:%'")[0]
    docs = db_query(env, "select ref, seq, length from search_searchdoc where scope_id = ?", (scope[0],))
    postings_total = db_query(env, "select sum(tf) from search_posting where scope_id = ?", (scope[0],))[0][0]
    assert {ref for ref, _, _ in docs} == set(entries)
    assert sorted(seq for _, seq, _ in docs) == list(range(1, len(docs) + 1))  # no lost or repeated version
    assert scope[1:] == (len(docs), len(docs), sum(length for _, _, length in docs))
    assert postings_total == scope[3]
