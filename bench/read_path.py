"""Benchmark: the whole read path (every layer's read, no LLM) at scale, dense off and on,
side by side in one run.

    python bench/read_path.py [--runs 200] [--database-url URL]

One teacher, one agent: a thread of 1,000 finished turns (with its rolling summary),
10,000 recall entries, 30 confirmed core facts and 1,000 knowledge-base chunks. Each
timed call assembles the context of a new run through `agents.layers.assemble_context`
(the runner's own call), with a dev-set query as input: thread, core, recall and KB
reads, the token ledger and the fences. Dense on includes embedding the query (its
cache is cleared before each call). Recall entries and chunks get real model vectors of
a few hundred distinct texts reused across rows (embedding 11,000 rows here would take
15 minutes; only the matrix size matters for the timing).
"""

import argparse
import json
import sys
import time
from datetime import timedelta
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

TURNS, ENTRIES, FACTS, CHUNKS = 1000, 10_000, 30, 1000


def build(queries_texts):
    from django.db import transaction
    from django.test import override_settings
    from django.utils import timezone

    from agents.actor import Actor
    from agents.models import Run
    from agents.services import agent_create, teacher_create, tenant_create
    from corememory.models import CoreFact
    from knowledge.models import Chunk
    from knowledge.scopes import kb_scope
    from knowledge.services import document_create
    from recall.models import RecallEntry
    from recall.scopes import recall_scope
    from search import vectors
    from search.models import SearchDoc, SearchScope
    from search.services import index_add_many
    from threads.models import Thread

    tenant = tenant_create(slug="bench-read", name="bench")
    teacher = teacher_create(tenant=tenant, username="bench", password="pw-bench-123")
    agent = agent_create(tenant=tenant, name="bench", provider_kind="local")
    actor = Actor(tenant=tenant, user=teacher)
    pool = vectors.passage_vectors(queries_texts[:300], force=True)
    start = timezone.now() - timedelta(days=400)
    thread = Thread.objects.create(tenant=tenant, agent=agent, owner=teacher, title="bench",
                                   rolling_summary="老师在准备数据结构期末复习，已经出过二叉树和图的练习。" * 10)
    runs = [Run(tenant=tenant, agent=agent, thread=thread, owner=teacher, input=queries_texts[i % len(queries_texts)],
                output="好的，以下是内容。" * 40, status=Run.Status.COMPLETED, created_at=start + timedelta(minutes=i),
                finished_at=start + timedelta(minutes=i, seconds=30)) for i in range(TURNS)]
    Run.objects.bulk_create(runs, batch_size=500)
    Thread.objects.filter(pk=thread.pk).update(summary_upto_at=runs[-3].created_at)
    entries = [RecallEntry(tenant=tenant, agent=agent, owner=teacher, run_ref=f"old-{i}",
                           input=queries_texts[i % len(queries_texts)] + f" 第{i}次",
                           summary="给出了题目和答案，附评分标准。", summary_kind=RecallEntry.SummaryKind.IMPORTED,
                           happened_at=start + timedelta(hours=i)) for i in range(ENTRIES)]
    scope = recall_scope(tenant_id=tenant.pk, agent_id=agent.pk, owner_id=teacher.pk, end_user="")
    for begin in range(0, ENTRIES, 1000):
        batch = entries[begin:begin + 1000]
        with transaction.atomic():
            RecallEntry.objects.bulk_create(batch)
            index_add_many(scope=scope, items=[(e.pk, e.search_text()) for e in batch],
                           vectors=[pool[(begin + i) % len(pool)] for i in range(len(batch))])
    now = timezone.now()
    CoreFact.objects.bulk_create([CoreFact(tenant=tenant, agent=agent, owner=teacher, text=f"事实{i}：高一{i}班用人教版教材",
                                           normalized=f"事实{i}", last_used=now, confirmed_at=now)
                                  for i in range(FACTS)])
    with override_settings(RECALL_DENSE=False):
        made = 0
        while Chunk.objects.filter(agent=agent).count() < CHUNKS:
            text = "\n".join(queries_texts[(made + j) % len(queries_texts)] * 3 for j in range(60))
            document_create(tenant=tenant, agent=agent, title=f"资料{made}", text=text)
            made += 1
    kb = SearchScope.objects.get(key=kb_scope(tenant_id=tenant.pk, agent_id=agent.pk).key)
    ids = list(SearchDoc.objects.filter(scope=kb).values_list("id", flat=True))
    vectors.store.save({doc_id: pool[i % len(pool)] for i, doc_id in enumerate(ids)})
    SearchScope.objects.filter(pk=kb.pk).update(token="bench-vectors")
    return actor, agent, thread, len(ids)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--profile", action="store_true", help="also print where the lexical reads spend their time")
    args = parser.parse_args()
    from recall_search import setup_django

    tmp = setup_django(args.database_url)
    from django.db import connection
    from django.test import override_settings

    from agents.layers import ReadContext, assemble_context
    from agents.models import Run
    from search import vectors
    from search.engine import clear_cache, warm_up

    rows = [json.loads(line) for name in ("recall_dev_zh.jsonl", "recall_dev_en.jsonl")
            for line in (ROOT / "bench" / "data" / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    texts = [row["query"] for row in rows if row["type"] == "query" and row["id"].startswith("zh")]
    with override_settings(RECALL_DENSE=True):
        warm_up()
    actor, agent, thread, chunks = build(texts)
    run = Run.objects.create(tenant=actor.tenant, agent=agent, thread=thread, owner=actor.user, input=texts[0])
    print(f"database: {connection.vendor}; thread of {TURNS} turns, {ENTRIES} recall entries, {FACTS} facts, "
          f"{chunks} KB chunks; {args.runs} reads each")
    clear_cache()
    result = {}
    for dense in (False, True):
        with override_settings(RECALL_DENSE=dense):
            for text in texts[:20]:  # warm caches, as a running server has them
                assemble_context(ReadContext(run=run, agent=agent, actor=actor, thread=thread, input=text,
                                             language="zh", shared={}))
            times, sections = [], 0
            for i in range(args.runs):
                text = texts[i % len(texts)]
                vectors._query_cached.cache_clear()
                began = time.perf_counter()
                ledger = assemble_context(ReadContext(run=run, agent=agent, actor=actor, thread=thread, input=text,
                                                      language="zh", shared={}))
                times.append((time.perf_counter() - began) * 1000)
                sections += len(ledger.ordered_sections())
        result[dense] = (np.percentile(times, [50, 99]), sections / args.runs)
        if args.profile and not dense:
            import cProfile
            import pstats

            with override_settings(RECALL_DENSE=False), cProfile.Profile() as profile:
                for i in range(args.runs):
                    assemble_context(ReadContext(run=run, agent=agent, actor=actor, thread=thread,
                                                 input=texts[i % len(texts)], language="zh", shared={}))
            pstats.Stats(profile).sort_stats("cumulative").print_stats(30)
            timings = {}

            def timed(execute, sql, params, many, context):
                began = time.perf_counter()
                try:
                    return execute(sql, params, many, context)
                finally:
                    timings.setdefault(sql[:110], []).append((time.perf_counter() - began) * 1000)

            with override_settings(RECALL_DENSE=False), connection.execute_wrapper(timed):
                for i in range(args.runs):
                    assemble_context(ReadContext(run=run, agent=agent, actor=actor, thread=thread,
                                                 input=texts[i % len(texts)], language="zh", shared={}))
            print(f"{'ms/read':>8} {'n/read':>7}  query (SQL execution only)")
            for sql, ms in sorted(timings.items(), key=lambda item: -sum(item[1])):
                print(f"{sum(ms) / args.runs:8.2f} {len(ms) / args.runs:7.1f}  {sql}")
    (off, off_sections), (on, on_sections) = result[False], result[True]
    print(f"{'':12}{'p50 ms':>10}{'p99 ms':>10}{'sections':>10}")
    print(f"{'lexical':12}{off[0]:10.2f}{off[1]:10.2f}{off_sections:10.1f}")
    print(f"{'dense on':12}{on[0]:10.2f}{on[1]:10.2f}{on_sections:10.1f}")
    print(f"{'on / off':12}{on[0] / off[0]:10.2f}{on[1] / off[1]:10.2f}")
    print("targets: p50 <= 10 ms lexical-only, p50 <= 40 ms dense on (query embedding included)")
    if tmp:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
