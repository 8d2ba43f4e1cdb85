"""Benchmark: the whole read path (every layer's read, no LLM) at scale, dense off and on,
side by side in one run.

    python bench/read_path.py [--runs 200] [--database-url URL] [--profile] [--compare REF]

One teacher, one agent: a thread of 1,000 finished turns (with its rolling summary),
10,000 recall entries, 30 confirmed core facts and 1,000 knowledge-base chunks. Each
timed call assembles the context of a new run through `agents.layers.assemble_context`
(the runner's own call), with a dev-set query as input: thread, core, recall and KB
reads, the token ledger and the fences. Dense on includes embedding the query (its
cache is cleared before each call). Recall entries and chunks get real model vectors of
a few hundred distinct texts reused across rows (embedding 11,000 rows here would take
15 minutes; only the matrix size matters for the timing).

`--compare REF` (a git ref, e.g. main) also runs the read path of that commit, exported
with `git archive`, in a second process on the same database: first the same reads on
both sides (~120: Chinese and English inputs, the long thread and a new one, a fence
nonce), whose sections must be identical; then the timed reads, in alternating batches
of 10 so that both sides share the machine's noise, and the ratio of their percentiles.
"""

import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
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


BATCH = 10  # reads per turn of each side when comparing
NONCE = "kqfwmzrah"


def dev_queries(prefix: str) -> list[str]:
    return [row["query"] for name in ("recall_dev_zh.jsonl", "recall_dev_en.jsonl")
            for row in map(json.loads, filter(str.strip, (ROOT / "bench" / "data" / name).read_text(
                encoding="utf-8").splitlines()))
            if row["type"] == "query" and row["id"].startswith(prefix)]


def load(ids: dict) -> dict:
    """The agent, actor, threads and runs of `build`, read back by id (both sides of a
    comparison read the same rows)."""
    from agents.actor import Actor
    from agents.models import Agent, Run
    from threads.models import Thread

    agent = Agent.objects.select_related("tenant").get(pk=ids["agent"])
    objects = {"agent": agent}
    for name in ("thread", "new_thread"):
        objects[name] = Thread.objects.select_related("owner").get(pk=ids[name])
    for name in ("run", "new_run"):
        objects[name] = Run.objects.get(pk=ids[name])
    objects["actor"] = Actor(tenant=agent.tenant, user=objects["thread"].owner)
    return objects


def read(objects: dict, text: str, *, language: str = "zh", new_thread: bool = False, nonce: str = ""):
    from agents.layers import ReadContext, assemble_context

    thread, run = (objects["new_thread"], objects["new_run"]) if new_thread else (objects["thread"], objects["run"])
    return assemble_context(ReadContext(run=run, agent=objects["agent"], actor=objects["actor"], thread=thread,
                                        input=text, language=language, shared={}, nonce=nonce))


def timed_reads(objects: dict, texts: list[str], *, dense: bool) -> list[float]:
    """Milliseconds of each read; with dense on, the query's embedding is computed each time."""
    from django.test import override_settings

    from search import vectors

    times = []
    with override_settings(RECALL_DENSE=dense):
        for text in texts:
            vectors._query_cached.cache_clear()
            began = time.perf_counter()
            read(objects, text)
            times.append((time.perf_counter() - began) * 1000)
    return times


def section_reads(objects: dict, reads: list[dict]) -> list[list]:
    """The sections of each read (lexical), as plain data: what must not change."""
    from django.test import override_settings

    out = []
    with override_settings(RECALL_DENSE=False):
        for one in reads:
            ledger = read(objects, one["text"], language=one["language"], new_thread=one["new_thread"], nonce=NONCE)
            out.append([[s.layer, str(s.label), s.text, [str(item) for item in s.items]]
                        for s in ledger.ordered_sections()])
    return out


def _section_lines(sections: list[list]):
    for layer, label, text, items in sections:
        yield f"[{layer}] {label} {items}"
        yield from text.split("\n")


def warm(objects: dict, texts: list[str]) -> None:
    """Load the segmenter, the model and the index caches, as a running server has them."""
    from django.test import override_settings

    from search.engine import warm_up

    with override_settings(RECALL_DENSE=True):
        warm_up()
    for dense in (False, True):
        timed_reads(objects, texts[:20], dense=dense)


def serve(code: str, ids: dict) -> None:
    """The other side of --compare: the read path of the code in `code`, on the database
    in DATABASE_URL, answering one JSON request a line."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever the code under test prints goes to stderr, not into the answers
    sys.path.insert(0, code)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryproj.settings")
    import django

    django.setup()
    objects = load(ids)
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "warm":
            warm(objects, request["texts"])
            answer = {}
        elif request["op"] == "time":
            answer = {"ms": timed_reads(objects, request["texts"], dense=request["dense"])}
        else:
            answer = {"sections": section_reads(objects, request["reads"])}
        out.write(json.dumps(answer, ensure_ascii=False) + "\n")
        out.flush()


class Side:
    """The read path of one code tree (another commit, exported with `git archive`, or
    this working tree), in a child process of its own on the same database: both sides
    start alike, whatever this process did while building the data."""

    def __init__(self, ref: str | None, ids: dict):
        self.tmp = None
        if ref is None:
            self.name, code = "here", str(ROOT)
        else:
            self.name = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", ref], check=True,
                                       capture_output=True, text=True).stdout.strip()
            code = self.tmp = tempfile.mkdtemp(prefix="bench-read-ref-")
            archive = subprocess.Popen(["git", "-C", str(ROOT), "archive", ref], stdout=subprocess.PIPE)
            subprocess.run(["tar", "-x", "-C", code], stdin=archive.stdout, check=True)
            if archive.wait():
                raise SystemExit(f"git archive {ref} failed")
        self.process = subprocess.Popen([sys.executable, __file__, "--serve", code, json.dumps(ids)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")

    def ask(self, **request):
        self.process.stdin.write(json.dumps(request, ensure_ascii=False) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"the {self.name} side stopped (its error is above)")
        return json.loads(line)

    def close(self):
        import shutil

        self.process.stdin.close()
        self.process.wait(timeout=60)
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)


def compare(ref: str, ids: dict, texts: list[str], runs: int) -> bool:
    """Identical sections, then time side by side; False when the sections differ."""
    sides = []
    try:
        sides.append(Side(ref, ids))
        sides.append(Side(None, ids))
        theirs = sides[0]
        for side in sides:
            side.ask(op="warm", texts=texts)
        reads = ([{"text": t, "language": "zh", "new_thread": False} for t in texts[:70]]
                 + [{"text": t, "language": "en", "new_thread": False} for t in dev_queries("en")[:30]]
                 + [{"text": t, "language": "zh", "new_thread": True} for t in texts[70:80] + texts[:10]])
        before, after = (side.ask(op="sections", reads=reads)["sections"] for side in sides)
        differ = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
        layers = Counter(section[0] for sections in after for section in sections)
        print(f"sections of {len(reads)} reads ({', '.join(f'{layer} {n}' for layer, n in layers.items())}): "
              f"{len(reads) - len(differ)} identical on {theirs.name} and here")
        for i in differ[:3]:
            print(f"  {reads[i]}:")
            lines = difflib.unified_diff(*(list(_section_lines(side[i])) for side in (before, after)),
                                         theirs.name, "here", lineterm="", n=1)
            print("\n".join(f"    {line}" for line in list(lines)[:12]))
        result = {}
        for dense in (False, True):
            times = {side.name: [] for side in sides}
            for begin in range(0, runs, BATCH):
                batch = [texts[i % len(texts)] for i in range(begin, min(runs, begin + BATCH))]
                for side in sides if begin // BATCH % 2 else sides[::-1]:  # neither side always goes first
                    times[side.name] += side.ask(op="time", texts=batch, dense=dense)["ms"]
            result[dense] = [np.percentile(times[side.name], [50, 99]) for side in sides]
        print(f"side by side, {runs} reads each, in alternating batches of {BATCH} (ms)")
        print(f"{'':10}{'p50 ' + theirs.name:>14}{'p50 here':>10}{'ratio':>7}{'p99 ' + theirs.name:>14}"
              f"{'p99 here':>10}{'ratio':>7}")
        for dense, name in ((False, "lexical"), (True, "dense on")):
            (t50, t99), (h50, h99) = result[dense]
            print(f"{name:10}{t50:14.2f}{h50:10.2f}{h50 / t50:7.2f}{t99:14.2f}{h99:10.2f}{h99 / t99:7.2f}")
        return not differ
    finally:
        for side in sides:
            side.close()


def profile(objects: dict, texts: list[str], runs: int) -> None:
    """Where the lexical reads spend their time, and each query's SQL time."""
    import cProfile
    import pstats

    from django.db import connection
    from django.test import override_settings

    with override_settings(RECALL_DENSE=False):
        with cProfile.Profile() as profiler:
            for i in range(runs):
                read(objects, texts[i % len(texts)])
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
        timings = {}

        def timed(execute, sql, params, many, context):
            began = time.perf_counter()
            try:
                return execute(sql, params, many, context)
            finally:
                timings.setdefault(sql[:110], []).append((time.perf_counter() - began) * 1000)

        with connection.execute_wrapper(timed):
            for i in range(runs):
                read(objects, texts[i % len(texts)])
    print(f"{'ms/read':>8} {'n/read':>7}  query (SQL execution only)")
    for sql, ms in sorted(timings.items(), key=lambda item: -sum(item[1])):
        print(f"{sum(ms) / runs:8.2f} {len(ms) / runs:7.1f}  {sql}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--profile", action="store_true", help="also print where the lexical reads spend their time")
    parser.add_argument("--compare", metavar="REF", help="also run REF's read path side by side (e.g. main)")
    parser.add_argument("--serve", nargs=2, metavar=("CODE", "IDS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve[0], json.loads(args.serve[1]))
    from recall_search import setup_django

    tmp = setup_django(args.database_url)
    from django.db import connection

    from agents.models import Run
    from search.engine import clear_cache
    from threads.models import Thread

    texts = dev_queries("zh")
    actor, agent, thread, chunks = build(texts)
    new_thread = Thread.objects.create(tenant=actor.tenant, agent=agent, owner=actor.user, title="new")
    ids = {"agent": agent.pk, "thread": thread.pk, "new_thread": new_thread.pk}
    for name, in_thread in (("run", thread), ("new_run", new_thread)):
        ids[name] = Run.objects.create(tenant=actor.tenant, agent=agent, thread=in_thread, owner=actor.user,
                                       input=texts[0]).pk
    print(f"database: {connection.vendor}; thread of {TURNS} turns, {ENTRIES} recall entries, {FACTS} facts, "
          f"{chunks} KB chunks; {args.runs} reads each")
    clear_cache()
    same = True
    try:
        if args.compare:
            same = compare(args.compare, ids, texts, args.runs)
            return
        objects = load(ids)
        warm(objects, texts)
        result = {}
        for dense in (False, True):
            times = timed_reads(objects, [texts[i % len(texts)] for i in range(args.runs)], dense=dense)
            result[dense] = np.percentile(times, [50, 99])
        sections = len(read(objects, texts[0]).ordered_sections())
        if args.profile:
            profile(objects, texts, args.runs)
        off, on = result[False], result[True]
        print(f"{'':12}{'p50 ms':>10}{'p99 ms':>10}   sections: {sections}")
        print(f"{'lexical':12}{off[0]:10.2f}{off[1]:10.2f}")
        print(f"{'dense on':12}{on[0]:10.2f}{on[1]:10.2f}")
        print(f"{'on / off':12}{on[0] / off[0]:10.2f}{on[1] / off[1]:10.2f}")
        print("targets: p50 <= 10 ms lexical-only, p50 <= 40 ms dense on (query embedding included)")
    finally:
        if tmp:
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
