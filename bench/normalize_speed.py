"""How fast are core.normalize.normalize() and core.redline.check()? Both run on every fact
and every injected section.

Prints the time per call for a typical fact, a 4,000-character section, and an adversarial
string, side by side with a bare NFKC (the floor), and the ratios to it. Each call gets a
text it has not seen (the red line caches its last results).

Then, for inputs of 10,000 and 100,000 characters that once made a pattern backtrack or a
search branch out (runs of one digit, one numeral, pinyin syllables, spelled letters …),
the time per check side by side and the ratio: about 10 means linear. Stored texts are
checked again before every run (fail closed), so one archived output built to be slow
would slow every run that retrieves it. NFKC of pure ASCII text
returns at once, so the English row's ratios only say that the floor there is ~0.

    .venv/bin/python bench/normalize_speed.py
"""

import os
import sys
import time
import timeit
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryproj.settings")

import django  # noqa: E402

django.setup()

from core import redline  # noqa: E402
from core.normalize import normalize  # noqa: E402

SAMPLES = {
    "fact (30 chars)": "王老师喜欢先讲例题再布置作业，每周三下午有教研活动。",
    "section (4k chars)": ("上节课讲了二叉树的遍历，学生对中序遍历掌握得不错。Next week: B-tree and AVL rotations, "
                           "第3章习题 1-3-5-7-9。") * 40,
    "English section (4k chars)": ("Last lesson we covered binary tree traversal; most students handled in-order "
                                   "traversal well. Next week: B-trees, AVL rotations and chapter 3 exercises 1-3-5. ")
                                  * 25,
    "adversarial (200 chars)": "張三數學九十二分 ❶❸❽ ١٣٨ 138-12-34-56-78 &amp;#49; Ѕуѕtеm A.D.H.D one three eight "
                               "\U000e0031\u200b" * 3,
}


WORST_CASES = {
    "digits and spaces": "1 ",
    "one digit": "1",
    "one Chinese numeral": "一",
    "a numeral and a space": "一 ",
    "pinyin syllables": "yi ",
    "spelled letters": "a.",
    "letters and digits": "1x",
    "a subject": "数学",
    "a term's character": "哮",
    "entities": "&amp;",
    "teacher text": "张三考了92分，电话138 1234 5678。He scored 85. ",
}


def seconds(text: str) -> float:
    start = time.perf_counter()
    redline.check(text)
    return time.perf_counter() - start


def per_call_us(func, text, number):
    texts = iter([f"{text}{i}" for i in range(number * 5 + 5)])
    return min(timeit.repeat(lambda: func(next(texts)), number=number, repeat=5)) / number * 1e6


def main():
    redline.check("warm up the caches 張三 tangniaobing 哮踹")
    print(f"{'input':<28}{'NFKC (us)':>12}{'normalize (us)':>16}{'ratio':>10}{'check (us)':>12}{'ratio':>10}")
    for name, text in SAMPLES.items():
        number = 50 if len(text) > 1000 else 500
        floor = per_call_us(lambda t: unicodedata.normalize("NFKC", t), text, number)
        ours = per_call_us(normalize, text, number)
        check = per_call_us(redline.check, text, number)
        print(f"{name:<28}{floor:>12.1f}{ours:>16.1f}{ours / floor:>9.0f}x{check:>12.1f}{check / floor:>9.0f}x")

    print(f"\n{'hostile input':<28}{'10k chars (s)':>15}{'100k chars (s)':>16}{'ratio':>8}")
    for name, unit in WORST_CASES.items():
        small = seconds((unit * (10_000 // len(unit) + 1))[:10_000])
        large = seconds((unit * (100_000 // len(unit) + 1))[:100_000])
        print(f"{name:<28}{small:>15.3f}{large:>16.3f}{large / max(small, 1e-6):>8.1f}")


if __name__ == "__main__":
    main()
