"""The embedded model (llama.cpp + SmolLM2-135M): load time, first-token latency cold and
warm, and generation speed, measured in one run.

    .venv/bin/python bench/local_model.py [--runs 5] [--max-tokens 64]
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

from agents.providers import local  # noqa: E402

PROMPTS = [
    [{"role": "user", "content": "出一份数据结构试卷，包含三道选择题。"}],
    [{"role": "user", "content": "Write one exam question about binary trees."}],
]


def measure(provider, messages, max_tokens):
    start = time.perf_counter()
    first = None
    pieces = 0
    final = None
    for kind, value in provider.stream(messages, max_tokens=max_tokens):
        if kind == "delta":
            pieces += 1
            if first is None:
                first = time.perf_counter() - start
        else:
            final = value
    total = time.perf_counter() - start
    return first or total, total, final.completion_tokens if final else pieces


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=64)
    args = parser.parse_args()

    start = time.perf_counter()
    local.get_model()
    load = time.perf_counter() - start
    provider = local.LocalProvider(model="smollm2-135m-instruct")
    cold_first, _, _ = measure(provider, PROMPTS[0], args.max_tokens)
    firsts, speeds = [], []
    for i in range(args.runs):
        first, total, tokens = measure(provider, PROMPTS[i % len(PROMPTS)], args.max_tokens)
        firsts.append(first)
        if total > first and tokens > 1:
            speeds.append((tokens - 1) / (total - first))
    warm = statistics.median(firsts)
    print(f"model file:            {local.local_model_path().name}")
    print(f"load:                  {load * 1000:.0f} ms (once per process)")
    print(f"first token, 1st call: {cold_first * 1000:.0f} ms")
    print(f"first token, warm p50: {warm * 1000:.0f} ms   (cold/warm = {cold_first / warm:.2f})")
    print(f"generation:            {statistics.median(speeds):.1f} tokens/s (median of {len(speeds)} runs)")


if __name__ == "__main__":
    main()
