#!/usr/bin/env python
"""Thread memory vs. sending the whole history, over a 200-turn conversation.

    python bench/thread_tokens.py [--turns 200]

A throw-away SQLite database and the deterministic `scripted` provider (no model, no
network); each turn goes through the real runner, and its memory job (rolling
compression) runs inline as the memory worker would. Printed at turns 10/50/100/200:

- the prompt tokens of that run with thread memory (what the provider was sent),
- the prompt tokens the same run would cost if it sent the full history instead,
- their ratio,
- the cumulative tokens of the memory work (MemoryOp input + output) and their
  average per turn, overall and over the last stretch: flat per-turn cost means the
  memory work grows linearly with the conversation, not quadratically.
"""

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORK = Path(tempfile.mkdtemp(prefix="thread-bench-"))
os.environ["DJANGO_SETTINGS_MODULE"] = "memoryproj.settings_test"
os.environ["DATABASE_URL"] = f"sqlite:///{WORK / 'bench.sqlite3'}"
os.environ["REDIS_URL"] = ""
os.environ["LOG_LEVEL"] = "WARNING"

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db.models import Sum  # noqa: E402

from agents.actor import Actor  # noqa: E402
from agents.models import MemoryOp  # noqa: E402
from agents.providers.base import messages_tokens  # noqa: E402
from agents.runner import run_sync  # noqa: E402
from agents.services import agent_create, tenant_create  # noqa: E402
from core.tokens import count_tokens, truncate_tokens  # noqa: E402
from tests.threads.helpers import read_compression  # noqa: E402

CHECKPOINTS = (10, 50, 100, 200)

TOPICS = ["二叉树", "哈希表", "图的遍历", "排序算法", "动态规划", "栈与队列", "链表", "堆", "最短路径", "字符串匹配"]
REQUESTS = [
    "请围绕「{t}」出 5 道选择题，难度中等，附答案与解析。",
    "把第 {n} 轮里关于{t}的简答题换两道，保持总分不变。",
    "Write two short-answer questions on {t} for a Grade 11 class, with a marking scheme.",
    "针对{t}写一段课堂导入，大约 200 字，要有生活中的例子；另外列出三个学生常见误区，并给出纠正方法。",
    "Summarise what we changed so far about {t} and list the remaining open items.",
]
ANSWER = (
    "好的。以下是关于「{t}」的内容（第 {n} 轮）：\n"
    "一、选择题：1. 下列关于{t}的说法正确的是（ ）A. … B. … C. … D. …；答案 B，解析：{t}的关键性质在于结构与操作的对应。\n"
    "2. 在{t}中，时间复杂度为 O(n log n) 的操作是（ ）；答案 C。\n"
    "二、简答题：请说明{t}的基本思想，并举一个例子。参考答案：从定义、性质、典型操作三个方面作答，各 2 分。\n"
    "Notes for the teacher: the questions cover recall, application and analysis; adjust item 2 if the class "
    "has not met asymptotic notation yet. 评分建议：答出要点即可得分，表述完整另加 1 分。"
)


def responder(messages, purpose):
    """Chat: a realistic exam-writing reply. Compression: the previous summary plus a
    line per folded turn, kept within the budget as an instruction-following model would."""
    text = messages[-1]["content"]
    if purpose == "chat":
        request = text.rsplit("\n", 1)[-1]
        n = int(request.rsplit("#", 1)[-1]) if "#" in request else 0
        return ANSWER.format(t=TOPICS[n % len(TOPICS)], n=n)
    previous, asked = read_compression(text)
    if asked is None:  # a "shorten it" request
        return truncate_tokens(previous, 500, keep="tail")
    summary = "\n".join(part for part in [previous, *(f"- 老师要求：{a[:40]}（已完成）" for a in asked)] if part)
    return truncate_tokens(summary, 500, keep="tail")


def request_text(n: int) -> str:
    template = REQUESTS[n % len(REQUESTS)]
    return template.format(t=TOPICS[n % len(TOPICS)], n=max(1, n - 1)) + f" #{n}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()

    call_command("migrate", verbosity=0)
    settings.SCRIPTED_RESPONDER = "__main__.responder"
    # Thread memory alone, so the figures are its own (no other layer's sections or jobs).
    settings.MEMORY_LAYERS = ["threads.layer.ThreadLayer"]
    school = tenant_create(slug="bench", name="Bench school")
    agent = agent_create(tenant=school, name="出题助手", provider_kind="scripted", model="scripted-zh")
    actor = Actor(tenant=school, via_api_key=True)

    system = [{"role": "system", "content": agent.system_prompt}] if agent.system_prompt else []
    history: list[dict] = []  # what "send the full history" would resend every turn
    thread_id = None
    with_memory_total = full_total = 0
    previous_ops = (0, 0)
    started = time.perf_counter()
    rows = []
    for n in range(1, args.turns + 1):
        text = request_text(n)
        run = run_sync(actor=actor, agent=agent, input=text, thread_id=thread_id)
        assert run.status == "completed", run.error_code
        thread_id = run.thread_id
        full = messages_tokens(system + history + [{"role": "user", "content": text}])
        history += [{"role": "user", "content": text}, {"role": "assistant", "content": run.output}]
        with_memory_total += run.prompt_tokens
        full_total += full
        if n in CHECKPOINTS or n == args.turns:
            compress_ops = MemoryOp.objects.filter(thread_id=thread_id, kind="compress")
            ops = compress_ops.aggregate(i=Sum("input_tokens"), o=Sum("output_tokens"))
            op_tokens = (ops["i"] or 0) + (ops["o"] or 0)
            calls = compress_ops.count()
            stretch = n - previous_ops[0]
            section = next((s["tokens"] for s in run.context["sections"] if s["layer"] == "thread"), 0)
            rows.append((n, run.prompt_tokens, section, full, full / run.prompt_tokens, with_memory_total, full_total,
                         op_tokens, calls, op_tokens / n, (op_tokens - previous_ops[1]) / stretch))
            previous_ops = (n, op_tokens)
    elapsed = time.perf_counter() - started

    print(f"Thread memory vs. full history — {args.turns} turns, scripted provider, budgets: "
          f"thread {agent.budget_thread} (summary {agent.budget_thread_summary}, last K={agent.thread_recent_turns} "
          f"turns {agent.budget_thread_turns}) tokens; tokenizer {settings.TOKEN_ENCODING}")
    print()
    header = ("turn", "prompt/run", "thread sec", "full hist/run", "ratio", "cum prompt", "cum full",
              "memop tok", "memop calls", "memop/turn", "memop/turn (stretch)")
    print("  ".join(f"{h:>{w}}" for h, w in zip(header, (4, 10, 10, 13, 6, 10, 10, 9, 11, 10, 20))))
    for row in rows:
        n, prompt, section, full, ratio, cum_mem, cum_full, op_tokens, calls, per_turn, per_stretch = row
        print(f"{n:>4}  {prompt:>10}  {section:>10}  {full:>13}  {ratio:>5.1f}x  {cum_mem:>10}  {cum_full:>10}  "
              f"{op_tokens:>9}  {calls:>11}  {per_turn:>10.0f}  {per_stretch:>20.0f}")
    print()
    average_input = count_tokens("".join(request_text(i) for i in range(1, 21))) / 20
    print(f"prompt/run: tokens the provider was sent for that turn with thread memory (thread sec: its thread "
          f"section); full hist/run: the same turn resending every earlier turn verbatim; cum: sums over all turns "
          f"so far (cumulative full-history cost is quadratic in turns). memop: rolling-compression tokens "
          f"(MemoryOp input + output) so far; memop/turn (stretch): per turn since the previous checkpoint — flat "
          f"means linear growth. Input tokens per turn averaged {average_input:.0f}, "
          f"replies {count_tokens(ANSWER.format(t='二叉树', n=1))}. ({elapsed:.1f}s)")


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
