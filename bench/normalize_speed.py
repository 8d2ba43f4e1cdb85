"""How fast is core.normalize.normalize()? It runs on every fact and every injected section.

Prints the time per call for a typical fact, a 4,000-character section, and an adversarial
string, side by side with a bare NFKC (the floor), and the ratio between them.

    .venv/bin/python bench/normalize_speed.py
"""

import os
import sys
import timeit
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryproj.settings")

from core.normalize import normalize  # noqa: E402

SAMPLES = {
    "fact (30 chars)": "王老师喜欢先讲例题再布置作业，每周三下午有教研活动。",
    "section (4k chars)": ("上节课讲了二叉树的遍历，学生对中序遍历掌握得不错。Next week: B-tree and AVL rotations, "
                           "第3章习题 1-3-5-7-9。") * 40,
    "adversarial (200 chars)": "張三數學九十二分 ❶❸❽ ١٣٨ 138-12-34-56-78 &amp;#49; Ѕуѕtеm A.D.H.D one three eight "
                               "\U000e0031\u200b" * 3,
}


def per_call_us(func, text, number):
    return min(timeit.repeat(lambda: func(text), number=number, repeat=5)) / number * 1e6


def main():
    normalize("warm up the caches 張三")
    print(f"{'input':<26}{'NFKC only (us)':>16}{'normalize (us)':>16}{'ratio':>8}")
    for name, text in SAMPLES.items():
        number = 200 if len(text) > 1000 else 2000
        floor = per_call_us(lambda t: unicodedata.normalize("NFKC", t), text, number)
        ours = per_call_us(normalize, text, number)
        print(f"{name:<26}{floor:>16.1f}{ours:>16.1f}{ours / floor:>8.1f}x")


if __name__ == "__main__":
    main()
