"""Terms for the lexical index: CJK bigrams and Latin words.

Chinese has no spaces, and a word list (jieba) splits domain terms such as 「数据结构」
or 「简答题」 in ways that differ between a question and an old entry. Overlapping
bigrams need no dictionary and match whatever two characters the texts share:

- index: every CJK character on its own AND every pair of neighbouring CJK characters
  (「数据结构」 → 数 据 结 构 数据 据结 结构);
- query: only the bigrams (「数据结构」 → 数据 据结 结构) — single characters such as
  的 or 题 match nearly everything and add noise — except a CJK run of one character,
  which is queried as that character (that is why singles are indexed at all);
- Latin, digits and other alphabets: lower-cased words and numbers (NFKC first, so
  full-width ＡＢＣ１２ is abc12), minus a short English stop list.
"""

import re
import unicodedata

# Han (BMP, extension A, compatibility, supplementary planes), kana and hangul.
_CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\U00020000-\U0003134f"
_RUNS = re.compile(f"([{_CJK_RANGES}]+)|([^\\W_{_CJK_RANGES}]+)")

STOPWORDS = frozenset(
    "a an and are as at be but by for from had has have he her his i if in into is it its me my no not of on "
    "or our she so than that the their them then there these they this to was we were what when which who "
    "will with you your".split()
)

#: terms longer than this are cut (a pasted hash or URL must not bloat the index)
MAX_TERM_CHARS = 40


def _runs(text: str):
    text = unicodedata.normalize("NFKC", text or "").lower()
    for match in _RUNS.finditer(text):
        cjk, word = match.groups()
        if cjk:
            yield True, cjk
        elif word not in STOPWORDS:
            yield False, word[:MAX_TERM_CHARS]


def index_terms(text: str) -> list[str]:
    """Every term a document is indexed under, with repeats (their count is the tf)."""
    terms: list[str] = []
    for is_cjk, run in _runs(text):
        if is_cjk:
            terms.extend(run)
            terms.extend(run[i:i + 2] for i in range(len(run) - 1))
        else:
            terms.append(run)
    return terms


def query_terms(text: str) -> list[str]:
    """The terms a query searches for, with repeats."""
    terms: list[str] = []
    for is_cjk, run in _runs(text):
        if is_cjk and len(run) > 1:
            terms.extend(run[i:i + 2] for i in range(len(run) - 1))
        else:
            terms.append(run)
    return terms
