"""Benchmark: our recall search (database postings + per-scope cache) against bm25s on the
same corpus, side by side in one run.

    python bench/recall_search.py [--entries 10000] [--queries 300] [--plot var/bench/recall_search.png]

A synthetic but realistic corpus: one teacher's history with one agent (zh and en
requests, as recall entries: the request plus the head of the reply). Each query refers
back to one earlier entry in other words (a student's name, a title, the topic), the way
a teacher does; a hit is that entry in the top k.

Printed, for each corpus size: query latency p50/p99 (ours warm, ours cold: the first
query after a process start, bm25s), ours/bm25s ratios, hit@1 and hit@3 for ours,
bm25s with its default tokenizer, and bm25s given our terms; and the cost of adding one
entry (it must not grow with the corpus). Runs against a temporary SQLite file, or
against DATABASE_URL when --database-url is given.
"""

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SUBJECTS = {
    "数据结构": ["二叉树遍历", "链表反转", "栈和队列", "图的最短路径", "哈希表冲突", "快速排序", "堆排序", "动态规划",
             "红黑树", "并查集", "拓扑排序", "最小生成树"],
    "语文": ["《春望》意象", "《桃花源记》翻译", "议论文论证方法", "记叙文描写", "《背影》父爱", "文言虚词", "病句修改",
           "《出师表》", "现代诗朗读", "说明文结构"],
    "数学": ["二次函数图像", "勾股定理证明", "一元二次方程", "相似三角形", "概率初步", "圆的切线", "不等式组", "数列求和",
           "三角函数", "立体几何"],
    "物理": ["牛顿第二定律", "欧姆定律", "浮力计算", "凸透镜成像", "机械能守恒", "电磁感应", "压强", "声音的传播"],
    "化学": ["氧化还原反应", "酸碱中和", "化学方程式配平", "元素周期表", "溶液浓度", "金属活动性"],
}
TASKS = ["出一份{t}的单元测验，含{n}道选择题", "写一份{t}的教案，课时{n}分钟", "给{t}出{n}道练习题并附答案",
         "批改关于{t}的作业并写评语", "设计一个{t}的课堂活动", "整理{t}的易错点清单", "出{t}的期末复习提纲"]
QUERY_TASKS = ["上次那份{t}的测验", "{t}的教案再改改", "{t}练习题的答案", "{t}作业的评语", "{t}课堂活动", "{t}易错点",
               "{t}复习提纲"]
GRADES = ["初一", "初二", "初三", "高一", "高二", "高三"]
SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈"
GIVEN = "小明小红子涵浩然欣怡梓轩雨桐一诺思远嘉怡俊杰佳琪文博雅婷宇航晓东丽华志强"
EN_TOPICS = ["photosynthesis", "the French Revolution", "binary search trees", "present perfect tense",
             "quadratic equations", "the water cycle", "plate tectonics", "Shakespeare's sonnets", "fractions",
             "the Industrial Revolution", "food chains", "Newton's laws"]
EN_TASKS = ["Write a quiz on {t} with {n} questions", "Plan a {n}-minute lesson on {t}",
            "Give feedback on an essay about {t}", "Make a revision sheet on {t}"]
EN_QUERY = ["that quiz on {t}", "the lesson plan about {t}", "feedback on the {t} essay", "revision sheet {t}"]
EN_NAMES = ["Alice", "Ben", "Chloe", "Daniel", "Emma", "Felix", "Grace", "Henry", "Isla", "Jack", "Kate", "Liam",
            "Mia", "Noah", "Olivia", "Peter", "Ruby", "Sam", "Tom", "Zoe"]


def make_corpus(n: int, n_queries: int, seed: int = 7):
    rng = random.Random(seed)
    entries, queries = [], []
    for i in range(n):
        if rng.random() < 0.8:
            subject = rng.choice(list(SUBJECTS))
            topic = rng.choice(SUBJECTS[subject])
            task = rng.randrange(len(TASKS))
            name = rng.choice(SURNAMES) + rng.choice([GIVEN[j:j + 2] for j in range(0, len(GIVEN), 2)])
            grade = rng.choice(GRADES)
            text = (f"{grade}({rng.randint(1, 12)})班{subject}：" + TASKS[task].format(t=topic, n=rng.randint(5, 45))
                    + f"，重点照顾{name}同学。")
            reply = f"好的，以下是{grade}{subject}关于{topic}的内容。一、……二、……针对{name}的建议：多练习基础题。"
            query = f"{name}那个" + QUERY_TASKS[task].format(t=topic)
        else:
            topic = rng.choice(EN_TOPICS)
            task = rng.randrange(len(EN_TASKS))
            name = rng.choice(EN_NAMES) + " " + rng.choice(EN_NAMES) + "son"
            text = EN_TASKS[task].format(t=topic, n=rng.randint(5, 45)) + f" for year {rng.randint(7, 12)}, with notes for {name}."
            reply = f"Here is the material on {topic}. Part 1 … Part 2 … Notes for {name}: practise the basics."
            query = f"{name}: " + EN_QUERY[task].format(t=topic)
        entries.append((f"e{i}", f"{text}\n{reply}"))
        queries.append((f"e{i}", query))
    picked = rng.sample(queries, min(n_queries, len(queries)))
    return entries, picked


def setup_django(database_url: str | None):
    tmp = None
    if not database_url:
        tmp = tempfile.mkdtemp(prefix="bench-recall-")
        database_url = f"sqlite:///{tmp}/bench.sqlite3"
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryproj.settings")
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    return tmp


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def measure_ours(scope, entries, queries, k=3):
    from search.engine import clear_cache, search
    from search.services import index_add_many

    for start in range(0, len(entries), 1000):
        index_add_many(scope=scope, items=entries[start:start + 1000])
    clear_cache()
    for target, query in queries:  # a first pass loads the queried terms, as a running server has
        search(scope_key=scope.key, query=query, limit=k)
    warm, hits1, hits3 = [], 0, 0
    for target, query in queries:
        began = time.perf_counter()
        hits = search(scope_key=scope.key, query=query, limit=k)
        warm.append((time.perf_counter() - began) * 1000)
        refs = [h.ref for h in hits]
        hits1 += refs[:1] == [target]
        hits3 += target in refs
    # cold: a fresh process's first queries (cache empty): a sample, each after a reset
    cold = []
    for target, query in queries[:30]:
        clear_cache()
        began = time.perf_counter()
        search(scope_key=scope.key, query=query, limit=k)
        cold.append((time.perf_counter() - began) * 1000)
    return {"warm": warm, "cold": cold, "hit1": hits1 / len(queries), "hit3": hits3 / len(queries)}


def measure_bm25s(entries, queries, tokenize, k=3):
    import bm25s

    ids = [ref for ref, _ in entries]
    retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    began = time.perf_counter()
    retriever.index([tokenize(text, index=True) for _, text in entries], show_progress=False)
    index_seconds = time.perf_counter() - began
    latencies, hits1, hits3 = [], 0, 0
    for target, query in queries:
        tokens = tokenize(query, index=False) or ["\u0000"]
        began = time.perf_counter()
        docs, scores = retriever.retrieve([tokens], k=k, show_progress=False, n_threads=1)
        latencies.append((time.perf_counter() - began) * 1000)
        refs = [ids[d] for d, s in zip(docs[0], scores[0]) if s > 0]
        hits1 += refs[:1] == [target]
        hits3 += target in refs
    return {"warm": latencies, "hit1": hits1 / len(queries), "hit3": hits3 / len(queries), "index_s": index_seconds}


def bm25s_default(text, index):
    import re

    return re.findall(r"(?u)\b\w\w+\b", text.lower())  # bm25s.tokenize's default splitter


def our_terms(text, index):
    from search.terms import index_terms, query_terms

    return index_terms(text) if index else query_terms(text)


def add_one_cost(sizes_done):
    """Median time to add one entry to scopes of the sizes already built."""
    from search.services import index_add

    out = {}
    for size, scope in sizes_done.items():
        times = []
        for i in range(20):
            began = time.perf_counter()
            index_add(scope=scope, ref=f"new-{i}", text=f"高二(3)班物理：给牛顿第二定律出{i}道练习题并附答案，重点照顾王小明同学。")
            times.append((time.perf_counter() - began) * 1000)
        out[size] = statistics.median(times)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--sizes", default="1000,2500,5000", help="smaller corpus sizes for the curve")
    parser.add_argument("--plot", default=str(ROOT / "var" / "bench" / "recall_search.png"))
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()

    tmp = setup_django(args.database_url)
    from agents.services import agent_create, tenant_create
    from django.db import connection
    from search.services import ScopeRef
    from search.terms import query_terms

    import logging

    import bm25s  # noqa: F401  (it sets its own logger to DEBUG on import)

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    query_terms("预热")  # the segmenter's one-off load, outside every timing
    tenant = tenant_create(slug=f"bench-{random.randrange(10**8)}")
    agent = agent_create(tenant=tenant, name="bench", provider_kind="local")
    sizes = sorted({int(s) for s in args.sizes.split(",") if s} | {args.entries})
    print(f"database: {connection.vendor}; corpus sizes {sizes}; {args.queries} queries; k=3")
    rows, scopes = [], {}
    for size in sizes:
        entries, queries = make_corpus(size, args.queries)
        scope = ScopeRef(key=f"bench:{tenant.pk}:{size}", tenant_id=tenant.pk, agent_id=agent.pk)
        scopes[size] = scope
        ours = measure_ours(scope, entries, queries)
        theirs = measure_bm25s(entries, queries, our_terms)
        naive = measure_bm25s(entries, queries, bm25s_default)
        rows.append((size, ours, theirs, naive))
        p50, p99 = percentile(ours["warm"], 50), percentile(ours["warm"], 99)
        t50, t99 = percentile(theirs["warm"], 50), percentile(theirs["warm"], 99)
        print(f"\n== {size} entries in one scope ==")
        print(f"latency p50   ours {p50:7.2f} ms   bm25s {t50:7.2f} ms   ours/bm25s {p50 / t50:5.2f}")
        print(f"latency p99   ours {p99:7.2f} ms   bm25s {t99:7.2f} ms   ours/bm25s {p99 / t99:5.2f}")
        print(f"cold query    ours p50 {percentile(ours['cold'], 50):.2f} ms (empty cache: first query of a process)")
        for name in ("hit1", "hit3"):
            print(f"{name.replace('hit', 'hit@'):6}        ours {ours[name]:.3f}   bm25s(our terms) {theirs[name]:.3f}"
                  f"   bm25s(default tokenizer) {naive[name]:.3f}   ours/bm25s(our terms) "
                  f"{ours[name] / theirs[name] if theirs[name] else float('inf'):.2f}")
    add_cost = add_one_cost(scopes)
    print("\nadding one entry (median of 20, ms): " + ", ".join(f"{s} entries: {c:.2f}" for s, c in add_cost.items()))
    biggest = max(add_cost)
    print(f"adding one entry at {biggest} vs {min(add_cost)} entries: ratio {add_cost[biggest] / add_cost[min(add_cost)]:.2f}"
          " (O(entry): no growth with the corpus)")
    plot(rows, add_cost, args.plot)
    print(f"\nplot: {args.plot}")
    if tmp:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)


def plot(rows, add_cost, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    sizes = [row[0] for row in rows]
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(15, 4.5))
    left.plot(sizes, [percentile(r[1]["warm"], 50) for r in rows], "o-", label="ours p50 (warm)")
    left.plot(sizes, [percentile(r[1]["warm"], 99) for r in rows], "o--", label="ours p99 (warm)")
    left.plot(sizes, [percentile(r[2]["warm"], 50) for r in rows], "s-", label="bm25s p50")
    left.plot(sizes, [percentile(r[2]["warm"], 99) for r in rows], "s--", label="bm25s p99")
    left.plot(sizes, [percentile(r[1]["cold"], 50) for r in rows], "^:", label="ours p50 (cold cache)")
    left.set_xlabel("entries in the scope")
    left.set_ylabel("query latency (ms)")
    left.set_yscale("log")
    left.set_ylim(0.05, None)
    left.legend(fontsize=7, loc="lower right", ncol=2)
    left.set_title("Query latency")
    last = rows[-1]
    names = ["ours", "bm25s\n(our terms)", "bm25s\n(default tokenizer)"]
    x = range(len(names))
    for offset, key in ((-0.2, "hit1"), (0.2, "hit3")):
        middle.bar([i + offset for i in x], [last[1][key], last[2][key], last[3][key]], width=0.4,
                   label=key.replace("hit", "hit@"))
    middle.set_xticks(list(x), names)
    middle.set_ylim(0, 1)
    middle.legend()
    middle.set_title(f"Hit rate, {last[0]} entries")
    right.plot(list(add_cost), list(add_cost.values()), "o-")
    right.set_xlabel("entries in the scope")
    right.set_ylabel("ms")
    right.set_ylim(bottom=0)
    right.set_title("Adding one entry")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
