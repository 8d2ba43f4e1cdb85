"""Benchmark: lexical vs dense vs hybrid recall on our dev sets, and search latency at 1k
and 10k entries with dense off and on, side by side in one run.

    python bench/recall_hybrid.py [--features var/bench/features.pkl] [--sizes 1000,10000]

Quality: every dev-set memory (bench/data/recall_dev_*.jsonl) is a recall entry written
through the real write path (postings and a real vector each); every query goes through
the engine. Rankings compared: lexical (BM25 rank), dense (cosine rank), hybrid (the
live search: calibrated probability over both). Printed per language: R@1, R@5, MRR,
and for the two that have a calibrated gate (lexical-only, hybrid) the layer's rule (top
3 above 0.2): the share of questions with a relevant memory for which one was injected,
and the share of questions without one for which anything was injected.

Latency: one scope of N entries (dev-set texts, varied), whose vectors are real model
vectors of those texts reused across copies (embedding 10,000 entries here would take
10 minutes and only the matrix size matters for the timing); the queries are the dev-set
queries, the query embedding included (its cache is cleared before each query).
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

GATE_K, GATE_MIN = 3, 0.2


def quality(items_dense, items_lexical, language):
    rows = {}
    def metrics(items, order_of, gated):
        r1 = r5 = rr = hits = pos = neg = injected_neg = 0.0
        for user, question, found, labels in items:
            if not user.startswith(f"devset-{language}"):
                continue
            order = order_of(found)
            ranked = labels[order]
            if question.evidence:
                pos += 1
                r1 += ranked[:1].sum() / len(question.evidence)
                r5 += ranked[:5].sum() / len(question.evidence)
                first = np.flatnonzero(ranked)
                rr += 1 / (first[0] + 1) if len(first) else 0
            if gated:
                p = found.probability
                injected = [i for i in order if p[i] > GATE_MIN][:GATE_K]
                if question.evidence:
                    hits += any(labels[i] for i in injected)
                else:
                    neg += 1
                    injected_neg += bool(injected)
            elif not question.evidence:
                neg += 1
        return {"R@1": r1 / pos, "R@5": r5 / pos, "MRR": rr / pos,
                "gate hit": hits / pos if gated else None, "injected on negatives": injected_neg / neg if gated else None}

    def by(values):
        return lambda found: np.lexsort((-found.positions, -values(found)))

    rows["lexical"] = metrics(items_lexical, by(lambda f: f.probability), True)
    rows["lexical (BM25 rank)"] = metrics(items_dense, by(lambda f: np.where(f.lex_rank >= 0, -f.lex_rank, -1e9)), False)
    rows["dense (cosine rank)"] = metrics(items_dense, by(lambda f: np.where(f.dense_rank >= 0, -f.dense_rank, -1e9)),
                                          False)
    rows["hybrid RRF"] = metrics(items_dense, by(lambda f: f.fused), False)
    rows["hybrid (live)"] = metrics(items_dense, by(lambda f: f.probability), True)
    return rows


def print_quality(rows, language):
    names = ["R@1", "R@5", "MRR", "gate hit", "injected on negatives"]
    print(f"\n== dev set {language} ==")
    print(f"{'':22}" + "".join(f"{n:>24}" for n in names))
    for mode, values in rows.items():
        print(f"{mode:22}" + "".join(f"{'-':>24}" if values[n] is None else f"{values[n]:24.3f}" for n in names))
    lex, hyb = rows["lexical"], rows["hybrid (live)"]
    print(f"{'hybrid / lexical':22}" + "".join(f"{hyb[n] / lex[n] if lex[n] else float('inf'):24.2f}" for n in names[:4]))


def latency(sizes, conversations, queries):
    from django.test import override_settings

    from agents.models import Tenant
    from agents.services import agent_create
    from search import vectors
    from search.engine import clear_cache, search
    from search.services import ScopeRef, index_add_many

    texts = [entry["input"] + "\n" + entry["summary"] for conv in conversations for entry in conv.entries]
    pool = vectors.passage_vectors(texts, force=True)
    tenant = Tenant.objects.create(slug="bench-latency", name="bench")
    agent = agent_create(tenant=tenant, name="bench", provider_kind="local")
    print("\n== search latency (ms), one scope ==")
    print(f"{'entries':>8} {'lexical p50':>12} {'p99':>8} {'dense on p50':>13} {'p99':>8} {'on/off p50':>11}")
    for size in sizes:
        scope = ScopeRef(key=f"bench:lat:{size}", tenant_id=tenant.pk, agent_id=agent.pk)
        for start in range(0, size, 1000):
            batch = range(start, min(size, start + 1000))
            index_add_many(scope=scope, items=[(f"e{i}", f"{texts[i % len(texts)]} #{i // len(texts)}") for i in batch],
                           vectors=[pool[i % len(pool)] for i in batch])
        clear_cache()
        result = {}
        for dense in (False, True):
            with override_settings(RECALL_DENSE=dense):
                for query in queries[:20]:  # warm: the postings and the matrix a running server holds
                    search(scope_key=scope.key, query=query, limit=3)
                times = []
                for query in queries:
                    vectors._query_cached.cache_clear()
                    began = time.perf_counter()
                    search(scope_key=scope.key, query=query, limit=3, min_score=GATE_MIN)
                    times.append((time.perf_counter() - began) * 1000)
            result[dense] = np.percentile(times, [50, 99])
        off, on = result[False], result[True]
        print(f"{size:>8} {off[0]:12.2f} {off[1]:8.2f} {on[0]:13.2f} {on[1]:8.2f} {on[0] / off[0]:11.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="bench/data/recall_dev_zh.jsonl,bench/data/recall_dev_en.jsonl")
    parser.add_argument("--features", help="the pickle bench/recall_fit.py --features wrote (else collected here)")
    parser.add_argument("--sizes", default="1000,10000")
    args = parser.parse_args()
    from recall_fit import collect, load_rows
    from recall_search import setup_django

    tmp = setup_django(None)
    from recall.evaluation import load_devset
    from search.engine import warm_up

    warm_up()
    conversations = load_devset(load_rows([ROOT / p for p in args.data.split(",")]))
    if args.features and Path(args.features).exists():
        import pickle

        items = pickle.loads(Path(args.features).read_bytes())
        # Recompute the probabilities with the committed coefficients: the pickle holds features.
    else:
        items = collect(conversations)
    for language in ("zh", "en"):
        print_quality(quality(items[True], items[False], language), language)
    queries = [q.text for conv in conversations for q in conv.questions]
    latency([int(s) for s in args.sizes.split(",") if s], conversations, queries)
    if tmp:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
