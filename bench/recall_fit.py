"""Fit the relevance model (search/relevance.py) on our dev sets and pick the gate.

    python bench/recall_fit.py [--data bench/data/recall_dev_zh.jsonl,bench/data/recall_dev_en.jsonl]

Loads every dev-set memory as a recall entry (the real write path: postings and dense
vectors) in a temporary SQLite database, asks every query through the engine's
`candidates()` (the features the live search computes), and fits a logistic model
p(relevant | features) with L2 regularisation, once with the dense features and once
lexical-only. Printed: the coefficients to paste into search/relevance.py; a
leave-one-teacher-out estimate of the gate (fit on the other teachers, gate the held-out
one), so the numbers are not the training fit; the threshold curve (hit rate on questions
with a relevant memory vs injected-on-negatives); the chosen threshold and the logit
shift that maps it to the layers' 0.2. Never run it on the public benchmarks.
"""

import argparse
import json
import math
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

GATE_K = 3
TARGET_NEGATIVE_RATE = 0.12  # a little margin under the 15 % acceptance target
L2 = 1.0


def load_rows(paths):
    rows = []
    for path in paths:
        rows += [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows


def collect(conversations):
    """{dense: [(user, question, Candidates, labels)]} through the real engine, both modes
    from one load."""
    from agents.actor import Actor
    from agents.models import Tenant
    from agents.services import agent_create
    from recall.scopes import recall_scope_for_actor
    from recall.services import recall_entries_import
    from search.engine import candidates

    tenant = Tenant.objects.create(slug=f"fit-{os.getpid()}", name="fit")
    out = {True: [], False: []}
    for conv in conversations:
        agent = agent_create(tenant=tenant, name=conv.key, provider_kind="local")
        actor = Actor(tenant=tenant, end_user=conv.key, via_api_key=True)
        recall_entries_import(tenant=tenant, agent=agent, end_user=actor.end_user, rows=conv.entries)
        from recall.models import RecallEntry

        ref_of = dict(RecallEntry.objects.filter(agent=agent).values_list("pk", "run_ref"))
        key = recall_scope_for_actor(actor=actor, agent=agent).key
        for question in conv.questions:
            for dense in (True, False):
                found = candidates(scope_key=key, query=question.text, dense=dense)
                if found is None:
                    continue
                labels = np.array([ref_of[ref] in question.evidence for ref in found.refs], dtype=float)
                out[dense].append((conv.key, question, found, labels))
    return out


def fit(X, y, l2=L2, iterations=50):
    """Logistic regression by Newton's method; returns (weights, bias)."""
    Xb = np.column_stack([X, np.ones(len(X))])
    w = np.zeros(Xb.shape[1])
    reg = np.eye(Xb.shape[1]) * l2
    reg[-1, -1] = 0
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-np.clip(Xb @ w, -30, 30)))
        grad = Xb.T @ (p - y) + reg @ w
        hess = (Xb * (p * (1 - p))[:, None]).T @ Xb + reg
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], w[-1]


def gate(items, w, b, threshold, *, rank_by="probability"):
    """(hit rate on questions with evidence, injected-on-negatives, MRR, R@5) under the layer's rule."""
    hits = positives = injected_negatives = negatives = 0
    rr = r5 = 0.0
    for _user, question, found, labels in items:
        p = 1 / (1 + np.exp(-np.clip(found.features @ w + b, -30, 30)))
        primary = found.fused if rank_by == "fused" else p
        order = np.lexsort((-found.positions, -p, -primary))
        injected = [i for i in order if p[i] > threshold][:GATE_K]
        if question.evidence:
            positives += 1
            hits += any(labels[i] for i in injected)
            ranked = labels[order]
            first = np.flatnonzero(ranked)
            rr += 1 / (first[0] + 1) if len(first) else 0
            r5 += ranked[:5].sum() / len(question.evidence)
        else:
            negatives += 1
            injected_negatives += bool(injected)
    return hits / max(1, positives), injected_negatives / max(1, negatives), rr / max(1, positives), r5 / max(1, positives)


def stack(items):
    X = np.concatenate([found.features for _, _, found, _ in items])
    y = np.concatenate([labels for _, _, _, labels in items])
    return X, y


def pick_threshold(items, w, b):
    """The lowest threshold whose injected-on-negatives is at most TARGET_NEGATIVE_RATE."""
    for threshold in np.arange(0.02, 0.99, 0.01):
        hit, neg, _, _ = gate(items, w, b, threshold)
        if neg <= TARGET_NEGATIVE_RATE:
            return float(threshold), hit, neg
    return 0.99, *gate(items, w, b, 0.99)[:2]


def report(name, items, feature_names):
    from search import relevance

    X, y = stack(items)
    w, b = fit(X, y)
    print(f"\n== {name}: {len(items)} queries, {len(y)} candidates, {int(y.sum())} relevant ==")
    print("weights: " + ", ".join(f"{n}={v:.3f}" for n, v in zip(feature_names, w)) + f"; bias={b:.3f}")
    for rank_by in ("fused", "probability"):
        _, _, mrr, r5 = gate(items, w, b, 0.5, rank_by=rank_by)
        print(f"ranking by {rank_by:11}: MRR {mrr:.3f}  R@5 {r5:.3f}")
    print("threshold  hit-rate  injected-on-negatives   (fit on all)")
    for threshold in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
        hit, neg, _, _ = gate(items, w, b, threshold)
        print(f"  {threshold:.2f}     {hit:6.1%}    {neg:6.1%}")
    threshold, hit, neg = pick_threshold(items, w, b)
    shift = math.log(0.2 / 0.8) - math.log(threshold / (1 - threshold))
    print(f"chosen threshold {threshold:.2f} (hit {hit:.1%}, negatives {neg:.1%}); GATE_SHIFT = {shift:.3f}")
    # leave one teacher out: fit and pick on the others, gate the held-out teacher
    users = sorted({user for user, *_ in items})
    held = []
    for user in users:
        train = [item for item in items if item[0] != user]
        test = [item for item in items if item[0] == user]
        Xt, yt = stack(train)
        wt, bt = fit(Xt, yt)
        t, _, _ = pick_threshold(train, wt, bt)
        held.append((len(test), *gate(test, wt, bt, t)))
    total = sum(n for n, *_ in held)
    hit = sum(n * h for n, h, *_ in held) / total
    neg = sum(n * g for n, _, g, *_ in held) / total
    print(f"leave-one-teacher-out ({len(users)} teachers): hit {hit:.1%}, injected-on-negatives {neg:.1%} "
          "(question-weighted)")
    print("paste:")
    print(f"    WEIGHTS = {dict(zip(feature_names, [round(float(v), 3) for v in w]))}")
    print(f"    BIAS = {b:.3f}; GATE_SHIFT = {shift:.3f}")
    return w, b, threshold


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="bench/data/recall_dev_zh.jsonl,bench/data/recall_dev_en.jsonl")
    parser.add_argument("--features", help="a pickle of the collected features: written when missing, read "
                                           "when present (refit without re-embedding)")
    args = parser.parse_args()
    from recall_search import setup_django

    tmp = setup_django(None)
    if args.features and Path(args.features).exists():
        import pickle

        from search import relevance

        items = pickle.loads(Path(args.features).read_bytes())
        if tmp:
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
        report("dense on", items[True], relevance.FEATURES)
        report("dense off (lexical only)", items[False], relevance.LEXICAL_FEATURES)
        return
    from recall.evaluation import load_devset
    from search import relevance
    from search.engine import warm_up

    warm_up()
    conversations = load_devset(load_rows([ROOT / p for p in args.data.split(",")]))
    items = collect(conversations)
    if args.features:
        import pickle

        Path(args.features).write_bytes(pickle.dumps(items))
    report("dense on", items[True], relevance.FEATURES)
    report("dense off (lexical only)", items[False], relevance.LEXICAL_FEATURES)
    if tmp:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
