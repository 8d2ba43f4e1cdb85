"""manage.py reindex (idempotent, resumable, --dense) and recall_eval on the dev-set JSONL."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from knowledge.services import document_create
from recall.models import RecallEntry
from recall.scopes import recall_scope_of
from search import vectors
from search.engine import search
from search.models import Posting, SearchDoc, SearchScope
from search.terms import ANALYZER_VERSION


def run_command(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.fixture
def entries(agent, teacher, remember, client):
    from tests.conftest import ApiClient

    client.force_login(teacher)
    as_teacher = ApiClient(client, key="")
    for text in ("出一份數據結構期末試卷", "写一篇春游的通知", "批改议论文"):
        remember(agent, text, client=as_teacher)
    return list(RecallEntry.objects.filter(agent=agent))


def _make_stale(scope_key: str) -> None:
    """As if indexed under the old analyzer: bigrams only, no traditional folding."""
    SearchScope.objects.filter(key=scope_key).update(analyzer="")
    Posting.objects.filter(scope__key=scope_key, term="数据结构").delete()


def test_reindex_rebuilds_stale_scopes_once_and_a_second_run_does_nothing(entries, school, agent, teacher):
    document_create(tenant=school, agent=agent, title="期末复习", text="数据结构期末复习提纲：二叉树、图、排序。")
    scope_key = recall_scope_of(entries[0]).key
    _make_stale(scope_key)
    first = run_command("reindex", "--tenant", school.slug)
    assert "3 documents re-indexed, 0 added, 0 removed, 0 embedded" in first
    assert SearchScope.objects.get(key=scope_key).analyzer == ANALYZER_VERSION
    # The traditional entry is found by its simplified word again.
    assert Posting.objects.filter(scope__key=scope_key, term="数据结构").count() == 1
    second = run_command("reindex", "--tenant", school.slug)
    assert "0 documents re-indexed, 0 added, 0 removed, 0 embedded" in second
    assert SearchDoc.objects.filter(scope__key=scope_key).count() == 3


def test_reindex_adds_missing_rows_and_drops_orphans(entries, school):
    scope_key = recall_scope_of(entries[0]).key
    SearchDoc.objects.filter(scope__key=scope_key, ref=entries[0].pk).delete()
    SearchScope.objects.filter(key=scope_key).update(doc_count=2)
    RecallEntry.objects.filter(pk=entries[1].pk).delete()  # the row goes, its index entry stays
    out = run_command("reindex")
    assert "0 documents re-indexed, 1 added, 1 removed" in out
    assert set(SearchDoc.objects.filter(scope__key=scope_key).values_list("ref", flat=True)) == {
        entries[0].pk, entries[2].pk}
    assert "0 documents re-indexed, 0 added, 0 removed" in run_command("reindex")


def test_reindex_dense_embeds_each_document_once_with_the_real_model(entries):
    scope_key = recall_scope_of(entries[0]).key
    assert not SearchDoc.objects.filter(scope__key=scope_key, vector__isnull=False).exists()  # dense off in tests
    vectors.reset()
    try:
        assert "3 embedded" in run_command("reindex", "--dense")
        assert SearchDoc.objects.filter(scope__key=scope_key, vector__isnull=True).count() == 0
        assert "0 embedded" in run_command("reindex", "--dense")
        with override_settings(RECALL_DENSE=True):
            hits = search(scope_key=scope_key, query="a notice about the spring outing", limit=1)
        assert hits and hits[0].ref == entries[1].pk
    finally:
        vectors.reset()


def test_reindex_refuses_an_unknown_school(db):
    with pytest.raises(CommandError, match="no school"):
        run_command("reindex", "--tenant", "nowhere")


DEVSET = [
    {"type": "memory", "id": "m1", "user": "t1", "ts": "2026-09-01T08:00:00", "input": "出一份二叉树遍历的课后练习",
     "summary": "给高一3班出了二叉树遍历练习：5题，侧重前中后序。"},
    {"type": "memory", "id": "m2", "user": "t1", "ts": "2026-09-02T08:00:00", "input": "写一篇春游的通知",
     "summary": "春游通知：周五出发，带午餐。"},
    {"type": "memory", "id": "m3", "user": "t2", "ts": "2026-09-02T09:00:00", "input": "批改议论文并写评语",
     "summary": "评语已写好。"},
    {"type": "query", "id": "q1", "user": "t1", "ts": "2026-09-10T08:00:00", "query": "二叉树遍历那份练习再加两题",
     "relevant": ["m1"]},
    {"type": "query", "id": "q2", "user": "t1", "ts": "2026-09-10T09:00:00", "query": "量子力学的实验报告怎么写",
     "relevant": []},
    {"type": "query", "id": "q3", "user": "t2", "ts": "2026-09-10T09:00:00", "query": "议论文的评语", "relevant": ["m3"]},
]


def _write(tmp_path, rows):
    path = tmp_path / "dev.jsonl"
    path.write_text("\n".join(json.dumps(row, ensure_ascii=False) for row in rows) + "\n", encoding="utf-8")
    return path


def test_recall_eval_reads_the_devset_jsonl_and_reports_negatives(db, tmp_path):
    lines = run_command("recall_eval", str(_write(tmp_path, DEVSET)), "--format", "devset", "--k", "1,3",
                        "--in-place").splitlines()
    assert lines[0] == "devset dev.jsonl: 2 conversations, 3 entries, 2 questions with evidence, 1 without"
    assert lines[2].split() == ["turn", "1.000", "1.000"]
    assert lines[4] == "MRR 1.000"
    assert "a relevant entry injected for 100.0% of questions with evidence" in lines[5]
    assert lines[6] == "without evidence: something injected for 0.0% of 1 questions"
    # the gate at other thresholds: at 0.2 (the agent's default) the same as the line above;
    # at 0.10 never fewer hits, at 0.40 never more
    curve = dict(item.split(": ") for item in lines[7].split("): ", 1)[1].split(", "))
    assert curve["0.20"] == "100% / 0%"
    hits = {t: int(v.split("%")[0]) for t, v in curve.items()}
    assert hits["0.10"] >= hits["0.20"] >= hits["0.40"]


def test_recall_eval_compares_dense_on_and_off_in_one_run(db, tmp_path):
    vectors.reset()
    try:
        out = run_command("recall_eval", str(_write(tmp_path, DEVSET)), "--format", "devset", "--k", "1",
                          "--dense", "on,off", "--in-place")
    finally:
        vectors.reset()
    assert "[dense on]: 2 conversations" in out and "[dense off]: 2 conversations" in out
    assert out.count("without evidence: something injected for") == 2


def test_recall_eval_refuses_a_devset_query_pointing_at_another_users_memory(db, tmp_path):
    rows = DEVSET + [{"type": "query", "id": "q4", "user": "t2", "ts": "2026-09-10T09:00:00", "query": "x",
                      "relevant": ["m1"]}]
    with pytest.raises(CommandError, match="is not a devset file"):
        run_command("recall_eval", str(_write(tmp_path, rows)), "--format", "devset", "--in-place")
    with pytest.raises(CommandError, match="--dense takes"):
        run_command("recall_eval", str(_write(tmp_path, DEVSET)), "--format", "devset", "--dense", "maybe",
                    "--in-place")


@pytest.mark.timeout(600)
def test_the_gate_meets_its_targets_on_the_chinese_dev_set(db, settings):
    """The calibrated gate's operating point (search/relevance.py), measured as a run reads
    recall, with the real embedding model, on the hand-written zh dev set: a relevant memory
    injected for at least 45 % of the questions that have one, something injected for at
    most 15 % of those that have none (the issue's targets, on our data)."""
    import re

    settings.RECALL_DENSE = True  # the default outside tests
    vectors.reset()
    try:
        out = run_command("recall_eval", str(settings.BASE_DIR / "bench" / "data" / "recall_dev_zh.jsonl"),
                          "--format", "devset", "--k", "5", "--dense", "on", "--in-place")
    finally:
        vectors.reset()
    hit = float(re.search(r"a relevant entry injected for ([\d.]+)%", out).group(1))
    negatives = float(re.search(r"without evidence: something injected for ([\d.]+)%", out).group(1))
    assert hit >= 45.0 and negatives <= 15.0, out
