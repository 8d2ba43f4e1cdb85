"""Terms for the lexical index: CJK bigrams and Latin words.

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
- Latin, digits and other alphabets: lower-cased words and numbers (NFKC first, so
  full-width ＡＢＣ１２ is abc12), minus a short English stop list.
"""

import logging
import re
import threading
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
    for number, word in enumerate(_segment(run)):
        word_of.extend([number] * len(word))
        word_length.extend([len(word)] * len(word))
    def keep(i: int, bigram: str) -> bool:
        if bigram in QUERY_STOPWORDS_ZH:
            return False
        if word_of[i] == word_of[i + 1]:
            return True
        return word_length[i] == word_length[i + 1] == 1 and not _FUNCTION_CHARS.intersection(bigram)

    kept = [bigram for i, bigram in enumerate(bigrams) if keep(i, bigram)]
    return kept or bigrams


def query_terms(text: str) -> list[str]:
    """The terms a query searches for, with repeats."""
    terms: list[str] = []
    for is_cjk, run in _runs(text):
        if is_cjk and len(run) > 1:
            terms.extend(_query_bigrams(run))
        else:
            terms.append(run)
    return terms
