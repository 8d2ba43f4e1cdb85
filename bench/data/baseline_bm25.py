"""Reference point only: a plain BM25 (Latin words + CJK character bigrams, k1=1.2, b=0.75) over each user's
memories (input + summary), scored on the dev sets' queries that have evidence. Plain Python, no Django.

    python bench/data/baseline_bm25.py

Prints recall@5 overall and per query style, recall@1 and MRR. Not our engine: a floor to compare against.
"""

import json
import math
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def tokens(text):
    text = text.lower()
    out = re.findall(r"[a-z0-9]+", text)
    for run in re.sub(r"[^\u4e00-\u9fff]", " ", text).split():
        out += [run[i:i + 2] for i in range(len(run) - 1)] or [run]
    return out


def bm25_scores(query, docs, df, avg):
    """BM25 of `query` against each term-count Counter of `docs` (df: document frequencies,
    avg: mean document length)."""
    n = len(docs)
    out = []
    for tf in docs:
        dl = sum(tf.values())
        s = 0.0
        for t in set(tokens(query)):
            if t in tf:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * tf[t] * 2.2 / (tf[t] + 1.2 * (0.25 + 0.75 * dl / avg))
        out.append(s)
    return out


def evaluate(path):
    records = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    docs = defaultdict(list)
    for r in records:
        if r["type"] == "memory":
            docs[r["user"]].append((r["id"], Counter(tokens(r["input"] + " " + r["summary"]))))
    stats = {}
    for user, ds in docs.items():
        df = Counter()
        for _, tf in ds:
            df.update(tf.keys())
        stats[user] = (df, sum(sum(tf.values()) for _, tf in ds) / len(ds))
    r5, r1, rr = defaultdict(list), [], []
    for q in records:
        if q["type"] != "query" or not q["relevant"]:
            continue
        ds = docs[q["user"]]
        df, avg = stats[q["user"]]
        scores = bm25_scores(q["query"], [tf for _, tf in ds], df, avg)
        scored = [(s, mid) for s, (mid, _) in zip(scores, ds)]
        ranking = [mid for _, mid in sorted(scored, key=lambda x: (-x[0], x[1]))]
        first = min(ranking.index(mid) for mid in q["relevant"])
        style = q.get("style", "-").split("+")[0]
        r5[style].append(first < 5)
        r5["ALL"].append(first < 5)
        r1.append(first == 0)
        rr.append(1 / (first + 1))
    print(f"== {Path(path).name}: {len(rr)} queries with evidence")
    print(f"R@5 {sum(r5['ALL']) / len(rr):.3f}   R@1 {sum(r1) / len(rr):.3f}   MRR {sum(rr) / len(rr):.3f}")
    print("R@5 by style: " + ", ".join(f"{k} {sum(v) / len(v):.2f} (n={len(v)})" for k, v in sorted(r5.items()) if k != "ALL"))


def main(argv):
    for p in argv or sorted(str(p) for p in HERE.glob("recall_dev_*.jsonl")):
        evaluate(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
