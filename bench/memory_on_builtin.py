"""Memory work of an agent on the built-in model (SmolLM2-135M through llama.cpp): the
deterministic fallbacks (extractive thread summary, no extraction, recall excerpt) against
the same jobs done with the model, as they were before providers declared
`fit_for_memory`. Same database, same conversation, same jobs; printed side by side.

    .venv/bin/python bench/memory_on_builtin.py [--turns 4]

Each memory job of the model path holds the one llama.cpp context the teacher's chat also
needs, so its time is time the teacher's next reply waits.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryproj.settings_test")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.utils import timezone  # noqa: E402

TURNS = [
    ("出一份数据结构期中试卷，包含选择题和简答题，满分 100 分。", "# 数据结构期中试卷\n\n## 一、选择题\n1. 栈的特点是？\n2. 二叉树第 k 层最多有几个结点？\n\n## 二、简答题\n- 简述栈和队列的区别。"),
    ("简答题换两道，难度低一点。", "## 二、简答题（已换两道）\n- 比较顺序表和链表。\n- 简述快速排序的思想。"),
    ("再加一道关于哈希表的选择题。", "3. 哈希冲突的常见解决方法有哪些？"),
    ("我教高二（3）班，以后都按 100 分制出卷。", "好的，以后按 100 分制出卷。"),
    ("给这份试卷写参考答案。", "## 参考答案\n1. 后进先出\n2. 2^(k-1)\n3. 开放定址、链地址"),
    ("排版成 A4，页眉写学校名称。", "好的，已按 A4 排版，页眉为学校名称。"),
    ("把选择题改成 10 道。", "好的，选择题已改为 10 道。"),
    ("期末考试也按这个格式来。", "好的，期末考试沿用此格式。"),
]


def conversation(turns: int):
    from agents.models import Run
    from agents.services import agent_create, tenant_create
    from threads.models import Thread

    school = tenant_create(slug=f"bench-{time.time_ns()}", name="bench")
    agent = agent_create(tenant=school, name="演示助手", provider_kind="local")
    thread = Thread.objects.create(tenant=school, agent=agent, title="bench")
    runs = []
    start = timezone.now()
    for index in range(turns):
        question, answer = TURNS[index % len(TURNS)]
        at = start + timezone.timedelta(seconds=index)
        runs.append(Run.objects.create(tenant=school, agent=agent, thread=thread, input=question, output=answer,
                                       status="completed", created_at=at, finished_at=at, provider_kind="local",
                                       model="smollm2-135m-instruct"))
    return agent, runs


def run_jobs(turns: int) -> tuple[list[float], int]:
    """Seconds per memory job, and how many model calls (MemoryOps) they made."""
    from agents.models import MemoryOp
    from agents.tasks import memory_job

    agent, runs = conversation(turns)
    seconds = []
    for run in runs:
        start = time.perf_counter()
        memory_job(run.pk)
        seconds.append(time.perf_counter() - start)
        print(f"  job {len(seconds)}: {seconds[-1]:.2f} s", file=sys.stderr, flush=True)
    return seconds, MemoryOp.objects.filter(agent=agent).count()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=4)
    args = parser.parse_args()

    from django.conf import settings

    from agents.providers import local

    settings.LOCAL_OLLAMA_URL = ""
    connection.creation.create_test_db(verbosity=0, keepdb=False)
    local.get_model()  # loaded once, outside both measurements
    print("warming up (the Chinese segmenter of the recall index loads on first use)", file=sys.stderr)
    run_jobs(1)

    fallback, fallback_calls = run_jobs(args.turns)
    local.LocalProvider.fit_for_memory = True  # the old behaviour: memory work on the built-in model
    try:
        model, model_calls = run_jobs(args.turns)
    finally:
        local.LocalProvider.fit_for_memory = False

    def line(label, values, calls):
        return (f"{label:<28} median {statistics.median(values) * 1000:9.1f} ms   max {max(values) * 1000:9.1f} ms"
                f"   total {sum(values):7.2f} s   model calls {calls}")

    print(f"{args.turns} memory jobs of an agent on the built-in model (one thread, real llama.cpp)")
    print(line("with the model (before)", model, model_calls))
    print(line("deterministic (fit_for_memory)", fallback, fallback_calls))
    print(f"ratio (before / now): median {statistics.median(model) / statistics.median(fallback):.0f}x, "
          f"total {sum(model) / sum(fallback):.0f}x")


if __name__ == "__main__":
    main()
