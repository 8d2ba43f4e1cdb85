"""Validate the recall dev sets and print their counts. Plain Python, no Django.

    python bench/data/check_devsets.py [FILE.jsonl ...]     # default: every recall_dev_*.jsonl beside this file

Checks: every line is a JSON object of type memory or query with the required fields; ids are unique and
carry the file's prefix; every `relevant` id exists, is a memory and belongs to the query's user; a query is
later than its evidence; no phone-number or ID-number-like digit runs. Exit status 1 on any error.
"""

import json
import re
import sys
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path

MEMORY_FIELDS = {"type", "id", "user", "ts", "input", "summary"}
QUERY_FIELDS = {"type", "id", "user", "ts", "query", "relevant"}
PERSONAL = re.compile(r"(?<!\d)(1[3-9]\d{9}|\d{17}[\dXx])(?!\d)")  # mainland mobile / resident ID shapes


def terms(text):
    text = text.lower()
    words = set(re.findall(r"[a-z0-9]+", text))
    cjk = re.sub(r"[^\u4e00-\u9fff]", " ", text)
    bigrams = {w[i:i + 2] for w in cjk.split() for i in range(len(w) - 1)}
    return words | bigrams


def check(path):
    errors = []
    records = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
        except json.JSONDecodeError as e:
            errors.append(f"line {n}: invalid JSON ({e})")
            continue
        if not isinstance(r, dict):
            errors.append(f"line {n}: not an object")
            continue
        need = MEMORY_FIELDS if r.get("type") == "memory" else QUERY_FIELDS if r.get("type") == "query" else None
        if need is None:
            errors.append(f"line {n}: unknown type {r.get('type')!r}")
            continue
        missing = need - r.keys()
        if missing:
            errors.append(f"line {n}: missing {sorted(missing)}")
            continue
        try:
            r["_ts"] = datetime.fromisoformat(r["ts"])
        except (TypeError, ValueError):
            errors.append(f"line {n}: bad ts {r['ts']!r}")
            continue
        r["_line"] = n
        records.append(r)

    prefix = Path(path).stem.rsplit("_", 1)[-1]  # recall_dev_zh -> zh
    ids = Counter(r["id"] for r in records)
    for i, c in ids.items():
        if c > 1:
            errors.append(f"duplicate id {i} ({c}x)")
    mems = {r["id"]: r for r in records if r["type"] == "memory"}
    queries = [r for r in records if r["type"] == "query"]
    for r in records:
        want = f"{prefix}-{'m' if r['type'] == 'memory' else 'q'}"
        if not re.fullmatch(re.escape(want) + r"\d{4}", r["id"]):
            errors.append(f"line {r['_line']}: id {r['id']} does not look like {want}NNNN")
        if not r["user"].startswith(f"{prefix}-t"):
            errors.append(f"line {r['_line']}: user {r['user']} does not look like {prefix}-tN")
        text = r.get("input", "") + r.get("summary", "") + r.get("query", "")
        if not text.strip():
            errors.append(f"line {r['_line']}: empty text")
        if PERSONAL.search(text):
            errors.append(f"line {r['_line']}: phone/ID-number-like digits")
    for q in queries:
        if not isinstance(q["relevant"], list):
            errors.append(f"{q['id']}: relevant is not a list")
            continue
        if len(set(q["relevant"])) != len(q["relevant"]):
            errors.append(f"{q['id']}: repeated relevant id")
        for mid in q["relevant"]:
            m = mems.get(mid)
            if m is None:
                errors.append(f"{q['id']}: relevant {mid} is not a memory in this file")
            elif m["user"] != q["user"]:
                errors.append(f"{q['id']}: relevant {mid} belongs to {m['user']}, not {q['user']}")
            elif m["_ts"] >= q["_ts"]:
                errors.append(f"{q['id']}: asked at {q['ts']}, before its evidence {mid} ({m['ts']})")

    # counts
    users = sorted({r["user"] for r in records})
    per = defaultdict(Counter)
    for r in records:
        if r["type"] == "memory":
            per[r["user"]]["memories"] += 1
        else:
            per[r["user"]]["queries with evidence" if r["relevant"] else "queries without evidence"] += 1
    print(f"== {Path(path).name}")
    print(f"{'user':8} {'memories':>9} {'q+evidence':>11} {'q-no-evid':>10}")
    tot = Counter()
    for u in users:
        c = per[u]
        tot.update(c)
        print(f"{u:8} {c['memories']:>9} {c['queries with evidence']:>11} {c['queries without evidence']:>10}")
    print(f"{'total':8} {tot['memories']:>9} {tot['queries with evidence']:>11} {tot['queries without evidence']:>10}")
    nrel = Counter(len(q["relevant"]) for q in queries if q["relevant"])
    print("relevant memories per query with evidence:", ", ".join(f"{k}: {v}" for k, v in sorted(nrel.items())))
    lens = [len(q["query"]) for q in queries]
    print("query length (characters): 5-15: %d, 16-19: %d, 20-60: %d, 61-99: %d, 100-300: %d, other: %d" % (
        sum(5 <= n <= 15 for n in lens), sum(16 <= n <= 19 for n in lens), sum(20 <= n <= 60 for n in lens),
        sum(61 <= n <= 99 for n in lens), sum(100 <= n <= 300 for n in lens), sum(n < 5 or n > 300 for n in lens)))
    styles = Counter(q.get("style", "-") for q in queries)
    base = Counter()
    flags = Counter()
    for s, c in styles.items():
        head, *tail = s.split("+")
        base[head] += c
        for t in tail:
            flags[t] += c
    print("query styles:", ", ".join(f"{k}: {v}" for k, v in sorted(base.items())))
    if flags:
        print("query variants:", ", ".join(f"{k}: {v}" for k, v in sorted(flags.items())))
    # how much of a query's wording its evidence shares: character bigrams (CJK) / lower-cased words (Latin)
    overlap = defaultdict(list)
    for q in queries:
        if q["relevant"] and all(mid in mems for mid in q["relevant"]):
            qt = terms(q["query"])
            mt = set().union(*(terms(mems[mid]["input"] + " " + mems[mid]["summary"]) for mid in q["relevant"]))
            if qt:
                overlap[q.get("style", "-").split("+")[0]].append(len(qt & mt) / len(qt))
    if overlap:
        print("share of query terms found in its evidence (mean, by style):",
              ", ".join(f"{k}: {sum(v) / len(v):.2f}" for k, v in sorted(overlap.items())))
    mts = [m["_ts"] for m in mems.values()]
    qts = [q["_ts"] for q in queries]
    if mts and qts:
        print(f"memory ts {min(mts):%Y-%m-%d} .. {max(mts):%Y-%m-%d}; query ts {min(qts):%Y-%m-%d} .. {max(qts):%Y-%m-%d}")
    for e in errors[:50]:
        print("ERROR", e)
    print("errors:", len(errors))
    return not errors


def main(argv):
    paths = argv or sorted(str(p) for p in Path(__file__).resolve().parent.glob("recall_dev_*.jsonl"))
    ok = True
    for p in paths:
        ok = check(p) and ok
        print()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
