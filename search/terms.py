"""Terms for the lexical index: CJK bigrams, jieba words, and Latin words.

Chinese has no spaces, and a word list (jieba) splits domain terms such as 「数据结构」
or 「简答题」 in ways that differ between a question and an old entry. Overlapping
bigrams need no dictionary and match whatever two characters the texts share:

- index: every CJK character on its own AND every pair of neighbouring CJK characters
  (「数据结构」 → 数 据 结 构 数据 据结 结构);
- query: only the bigrams (「数据结构」 → 数据 据结 结构) — single characters such as
  的 or 题 match nearly everything and add noise — except a CJK run of one character,
  which is queried as that character (that is why singles are indexed at all);
- but not the bigrams that straddle two words of a Chinese query. 「按大纲出二叉树遍历的题」
  has eleven bigrams, and five of them (按大 纲出 出二 树遍 历的 …) are junk that no
  text contains: they carried most of the query's weight, so a passage that really
  answered it scored 0.07 on the 0–1 scale. jieba (dictionary + HMM) marks the word
  boundaries of the query only; a bigram is kept when it lies inside a word, or joins
  two one-character pieces (an unknown name the segmenter split, 春|望) other than
  function words (的, 了, 和 …). The index
  never depends on a segmenter, so a segmentation mistake can only drop a query term,
  never hide a document. The same passage now scores 0.38. jieba loads its dictionary
  once per process, on the first query (about 2 s);
- words of three or more characters (「数据结构」, 「简答题」, 「拓扑排序」), as jieba cuts the
  text, are terms of their own on both sides: a document that holds the whole word
  outranks one that only shares its bigrams. Shorter words are already bigrams;
- traditional characters fold to simplified (core.normalize.to_simplified, OpenCC) before
  anything else, on both sides: 「數據結構」 finds 「数据结构」;
- Latin, digits and other alphabets: lower-cased words and numbers (NFKC first, so
  full-width ＡＢＣ１２ is abc12), minus a short English stop list, with a light stemmer
  for plurals and -ing/-ed (quizzes → quiz, trees → tree, graded → grade).

Changing these rules changes what the index holds: run `manage.py reindex` after.
"""

import logging
import re
import threading
import unicodedata

from core.normalize import to_simplified

# Han (BMP, extension A, compatibility, supplementary planes), kana and hangul.
_CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\U00020000-\U0003134f"
_RUNS = re.compile(f"([{_CJK_RANGES}]+)|([^\\W_{_CJK_RANGES}]+)")

STOPWORDS = frozenset(
    "a an and are as at be but by for from had has have he her his i if in into is it its me my no not of on "
    "or our she so than that the their them then there these they this to was we were what when which who "
    "will with you your can could would should do does did done please just also again about how any some "
    "s t ll ve re d m".split()
)

#: stamped on each scope by `manage.py reindex`; change it whenever the terms below change,
#: and reindex finds the scopes indexed under older rules
ANALYZER_VERSION = "2"
#: terms longer than this are cut (a pasted hash or URL must not bloat the index)
MAX_TERM_CHARS = 40


def stem(word: str) -> str:
    """A light English stemmer: plurals, -ing and -ed; short words and numbers stay."""
    if len(word) <= 3 or not word.isalpha() or not word.isascii():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("zzes"):
        return word[:-3]  # quizzes -> quiz
    if word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            root = word[:-len(suffix)]
            if len(root) > 2 and root[-1] == root[-2] and root[-1] not in "lsz":
                root = root[:-1]  # planned -> plan
            elif suffix == "ed" and not root.endswith("e") and root[-1] not in "aeiouy" and root[-2] in "aeiou" \
                    and len(root) <= 5:
                root += "e"  # graded -> grade, noted -> note
            return root
    return word


def _runs(text: str):
    text = to_simplified(unicodedata.normalize("NFKC", text or "")).lower()
    for match in _RUNS.finditer(text):
        cjk, word = match.groups()
        if cjk:
            yield True, cjk
        elif word not in STOPWORDS:
            yield False, stem(word[:MAX_TERM_CHARS])


def _long_words(run: str) -> list[str]:
    """jieba's words of three or more characters in a Han run."""
    if len(run) < 3 or not _HAN_ONLY.fullmatch(run):
        return []
    return [word[:MAX_TERM_CHARS] for word in _segment(run) if len(word) >= 3]


def index_terms(text: str) -> list[str]:
    """Every term a document is indexed under, with repeats (their count is the tf)."""
    terms: list[str] = []
    for is_cjk, run in _runs(text):
        if is_cjk:
            terms.extend(run)
            terms.extend(run[i:i + 2] for i in range(len(run) - 1))
            terms.extend(_long_words(run))
        else:
            terms.append(run)
    return terms


_HAN_ONLY = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]+")
# One-character function words: a bigram joining one of them to a neighbour is not a word.
_FUNCTION_CHARS = frozenset("的地得了着过是在和与及或把被将对向从吗呢吧啊呀么之其而我你他她它")
# Request fillers and pronouns: present in almost any question, in almost no document.
# A query bigram that is one of them is dropped (like the English stop list).
QUERY_STOPWORDS_ZH = frozenset(
    "一下 一个 一些 一份 一套 一篇 一道 一点 再来 再出 帮我 给我 请问 请你 麻烦 我们 你们 他们 她们 它们 "
    "这个 那个 这些 那些 这里 那里 什么 怎么 怎样 如何 哪些 哪个 可以 能否 需要 希望 想要 "
    "还有 然后 已经 现在 一样 还是 或者 就是 不是 没有 的话".split()
)
_jieba = None
_jieba_lock = threading.Lock()


def _segment(run: str) -> list[str]:
    global _jieba
    if _jieba is None:
        with _jieba_lock:
            if _jieba is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba = jieba
    return _jieba.lcut(run)


def warm_up() -> None:
    """Load the segmenter now (≈2 s, once per process) rather than in a teacher's first request."""
    _segment("预热")


def _query_bigrams(run: str) -> list[str]:
    bigrams = [run[i:i + 2] for i in range(len(run) - 1)]
    if not _HAN_ONLY.fullmatch(run):
        return bigrams  # kana and hangul: no segmenter, every bigram
    word_of, word_length = [], []
    words = _segment(run)
    for number, word in enumerate(words):
        word_of.extend([number] * len(word))
        word_length.extend([len(word)] * len(word))
    def keep(i: int, bigram: str) -> bool:
        if bigram in QUERY_STOPWORDS_ZH:
            return False
        if word_of[i] == word_of[i + 1]:
            return True
        return word_length[i] == word_length[i + 1] == 1 and not _FUNCTION_CHARS.intersection(bigram)

    kept = [bigram for i, bigram in enumerate(bigrams) if keep(i, bigram)]
    return (kept or bigrams) + [word for word in words if len(word) >= 3]


def query_terms(text: str) -> list[str]:
    """The terms a query searches for, with repeats."""
    terms: list[str] = []
    for is_cjk, run in _runs(text):
        if is_cjk and len(run) > 1:
            terms.extend(_query_bigrams(run))
        else:
            terms.append(run)
    return terms
