"""recall_export / recall_import (the log format) and recall_eval (public benchmark formats)."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from agents.models import Tenant
from recall.models import RecallEntry
from search.engine import search
from search.models import SearchDoc, SearchScope

FIXTURES = Path(__file__).parent / "fixtures"


def run_command(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.fixture
def history(agent, teacher, client, remember):
    from tests.conftest import ApiClient

    client.force_login(teacher)
    as_teacher = ApiClient(client, key="")
    return [remember(agent, text, client=as_teacher)
            for text in ("出一份数据结构期末试卷", "写一篇春游的通知", "批改议论文")]


def test_export_writes_one_json_object_per_entry(history, school):
    lines = run_command("recall_export", "--tenant", school.slug).splitlines()
    rows = [json.loads(line) for line in lines]
    assert [row["run_id"] for row in rows] == [reply["run_id"] for reply in history]
    assert rows[0]["input"] == "出一份数据结构期末试卷"
    assert rows[0]["owner"] == "wang" and rows[0]["tenant"] == "yizhong" and rows[0]["end_user"] == ""
    assert set(rows[0]) == {"run_id", "ts", "input", "summary", "summary_kind", "thread_id", "agent_id", "tenant",
                            "owner", "end_user"}


def test_an_export_imports_back_searchable_and_a_second_import_adds_nothing(history, school, tmp_path):
    path = tmp_path / "recall.jsonl"
    call_command("recall_export", "--tenant", school.slug, "--output", str(path), stderr=StringIO())
    before = {e.run_ref: (e.input, e.summary, e.happened_at, e.owner_id) for e in RecallEntry.objects.all()}
    scope_key = SearchScope.objects.get().key
    RecallEntry.objects.all().delete()
    SearchScope.objects.all().delete()

    assert "imported 3 recall entries" in run_command("recall_import", str(path), "--tenant", school.slug)
    after = {e.run_ref: (e.input, e.summary, e.happened_at, e.owner_id) for e in RecallEntry.objects.all()}
    assert after == before
    assert search(scope_key=scope_key, query="数据结构期末试卷")
    assert "imported 0 recall entries (3 already present)" in run_command(
        "recall_import", str(path), "--tenant", school.slug)
    assert SearchDoc.objects.count() == 3


def test_the_old_systems_log_lines_are_understood(agent, school, teacher, tmp_path):
    path = tmp_path / "recall_log.jsonl"
    path.write_text(
        '{"ts": "2026-05-01T09:00:00", "task": "出一份数据结构期末试卷", "result": "试卷已生成"}\n'
        "\n"
        '{"timestamp": 1767225600, "query": "写一篇春游的通知"}\n',
        encoding="utf-8",
    )
    args = ("recall_import", str(path), "--tenant", school.slug, "--agent", agent.pk, "--owner", "wang")
    assert "imported 2" in run_command(*args)
    assert "imported 0" in run_command(*args)
    entry = RecallEntry.objects.get(input="出一份数据结构期末试卷")
    assert (entry.summary, entry.summary_kind, entry.owner) == ("试卷已生成", "imported", teacher)
    assert entry.run_ref.startswith("legacy_")


def test_a_bad_line_stops_the_import_before_anything_is_written(agent, school, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"ts": "2026-05-01T09:00:00", "input": "ok"}\n{"input": "no time"}\n', encoding="utf-8")
    with pytest.raises(CommandError, match="line 2: no ts"):
        run_command("recall_import", str(path), "--tenant", school.slug, "--agent", agent.pk)
    assert not RecallEntry.objects.exists()


def test_import_refuses_an_agent_of_another_school(other_agent, school, tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"ts": "2026-05-01T09:00:00", "input": "x"}\n', encoding="utf-8")
    with pytest.raises(CommandError, match="no agent"):
        run_command("recall_import", str(path), "--tenant", school.slug, "--agent", other_agent.pk)


def test_recall_eval_on_locomo_reports_turn_and_session_recall_and_latency(db):
    report = run_command("recall_eval", str(FIXTURES / "locomo_small.json"), "--format", "locomo",
                         "--k", "1,3", "--in-place")
    lines = report.splitlines()
    assert lines[0].startswith("locomo locomo_small.json: 2 conversations, 10 entries, 8 questions with evidence, ")
    assert lines[1].split() == ["recall@k", "@1", "@3"]
    turn, session = lines[2].split(), lines[3].split()
    assert turn[0] == "turn" and float(turn[1]) >= 0.75 and turn[2] == "1.000"
    assert session[0] == "session" and session[2] == "1.000"
    assert lines[4].startswith("MRR ")
    assert lines[5].startswith("as injected (top 3, score > 0.2): turn ")
    assert lines[6].startswith("without evidence: something injected for ")
    assert lines[7].startswith("other thresholds (relevant injected / something injected on negatives): 0.10: ")
    assert lines[8].startswith("query latency: p50 ")
    assert not Tenant.objects.filter(slug__startswith="recall-eval-").exists()  # the throw-away school is gone


def test_recall_eval_on_longmemeval_reports_session_recall(db):
    report = run_command("recall_eval", str(FIXTURES / "longmemeval_small.json"), "--format", "longmemeval",
                         "--in-place")
    lines = report.splitlines()
    assert "3 conversations, 6 entries, 2 questions with evidence" in lines[0]
    assert lines[2].split() == ["turn", "-", "-", "-", "-"]  # entries are sessions: no turn level
    assert lines[3].split() == ["session", "1.000", "1.000", "1.000", "1.000"]


def test_recall_eval_refuses_a_file_of_the_wrong_format(db):
    with pytest.raises(CommandError, match="is not a locomo file"):
        run_command("recall_eval", str(FIXTURES / "longmemeval_small.json"), "--format", "locomo", "--in-place")


@pytest.mark.e2e
def test_recall_eval_runs_in_a_throw_away_database_by_default(tmp_path):
    from tests.procs import manage, project_env

    env = project_env(tmp_path / "unused.sqlite3")
    out = manage(env, "recall_eval", str(FIXTURES / "locomo_small.json"), "--format", "locomo", "--k", "1,3")
    assert "8 questions with evidence" in out and "query latency" in out
    assert not (tmp_path / "unused.sqlite3").exists()
