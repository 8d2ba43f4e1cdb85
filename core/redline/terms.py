"""Health and family terms: the reviewed list in core/data/sensitive_terms.txt, matched on
normalized text (so traditional characters, A.D.H.D and full-width letters are already
folded), and also when a term is written

- in pinyin, whole or in part (yiyuzheng, 糖niao病, tang niao bing): the text's Chinese
  characters and its Latin words are read as pinyin syllables, and a term matches when
  its syllables appear with at least one of them typed in Latin (all-Chinese text is
  matched as characters, so 小船 is never read as 哮喘);
- with one typo: a Latin term of 6 letters or more within one edit (depresion) in a word
  that is not itself an English word (reported is a word, not a typo of deported;
  hospital is not a misspelled hospitalised), or a Chinese term with one character replaced by a sound-alike (哮踹) that is not itself a
  dictionary word (结合 is a word, not a typo of 结核).

File format: see the header of the data file.
"""

import functools
import importlib.util
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from core.normalize import fold, normalize

TERMS_FILE = Path(__file__).resolve().parent.parent / "data" / "sensitive_terms.txt"

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_SPACES = re.compile(r"\s+")
_LATIN_WORD = re.compile(r"[a-z]+")
_UNIT = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[a-z]+")
_MIN_TYPO_LETTERS = 6
_MIN_PINYIN_LETTERS = 4


@dataclass(frozen=True)
class Term:
    kind: str
    text: str  # normalized
    prefix: bool = False  # Latin: any ending (asthma* -> asthmatic)
    case_sensitive: bool = False
    exact: bool = False  # no typo or pinyin variants
    unless: tuple[str, ...] = ()  # normalized words that make this term mean something else
    pinyin_only: bool = False  # found only when written in pinyin (the rules read its characters)
    medicine: bool = False  # a medicine's name: misspelt after "takes", "on" … (medicine_typo_kinds)

    @property
    def cjk(self) -> bool:
        return bool(_CJK.search(self.text))


def load_terms(path: Path = TERMS_FILE, kinds: tuple[str, ...] = ()) -> tuple[Term, ...]:
    terms, kind = [], None
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            kind = line[1:-1].strip()
            if kinds and kind not in kinds:
                raise ValueError(f"{path.name}:{number}: unknown kind [{kind}]")
            continue
        if kind is None:
            raise ValueError(f"{path.name}:{number}: a term before the first [kind] section")
        word, _, flags = line.partition("|")
        word = word.strip()
        exact, unless, pinyin_only, medicine = False, [], False, False
        for flag in flags.split(";"):
            name, _, value = flag.strip().partition(" ")
            if name == "exact":
                exact = True
            elif name == "medicine":
                medicine = True
            elif name == "pinyin":
                pinyin_only = True
            elif name == "unless":
                unless.extend(normalize(v.strip()) for v in value.split(",") if v.strip())
            elif name:
                raise ValueError(f"{path.name}:{number}: unknown flag {name!r}")
        case_sensitive = word.startswith("=")
        word = word.lstrip("=")
        prefix = word.endswith("*")
        text = fold(word.rstrip("*")) if case_sensitive else normalize(word.rstrip("*"))
        if pinyin_only and (exact or case_sensitive or not _CJK_RUN.fullmatch(text)):
            raise ValueError(f"{path.name}:{number}: only a Chinese term can be read in pinyin only")
        terms.append(Term(kind, text, prefix, case_sensitive, exact or case_sensitive, tuple(unless), pinyin_only,
                          medicine))
    return tuple(terms)


# --- exact matching ---------------------------------------------------------------------

def _latin_pattern(term: Term) -> str:
    body = re.escape(term.text).replace(r"\ ", r"[\s\-]*")
    return rf"\b{body}" + (r"\w*" if term.prefix else r"\b")


@dataclass(frozen=True)
class _Compiled:
    cjk: re.Pattern | None
    latin: re.Pattern | None
    case_sensitive: re.Pattern | None


def _alternation(patterns: list[str]) -> re.Pattern | None:
    # ASCII: a Latin term right after a Chinese character ("他有adhd") starts a word.
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.ASCII) if patterns else None


@functools.lru_cache(maxsize=8)
def compiled(terms: tuple[Term, ...]) -> dict[str, _Compiled]:
    out = {}
    for kind in dict.fromkeys(t.kind for t in terms):
        mine = [t for t in terms if t.kind == kind and not t.unless and not t.pinyin_only]
        cjk = sorted((t.text.replace(" ", "") for t in mine if t.cjk), key=len, reverse=True)
        out[kind] = _Compiled(
            cjk=_alternation([re.escape(t) for t in cjk]),
            latin=_alternation([_latin_pattern(t) for t in mine if not t.cjk and not t.case_sensitive]),
            case_sensitive=_alternation([_latin_pattern(t) for t in mine if t.case_sensitive]),
        )
    return out


def _contextual_hit(term: Term, plain: str, squeezed: str) -> bool:
    if term.cjk:
        found = term.text.replace(" ", "") in squeezed
    else:
        found = re.search(_latin_pattern(term), plain, re.ASCII) is not None
    return found and not any(word in plain for word in term.unless)


# --- pinyin -----------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _pinyin_table() -> dict[int, str]:
    """pypinyin's table of readings by character (``{0x4e00: "yī"}``), loaded from its one
    file: importing the package would also load its 50 MB phrase dictionary, unused here."""
    spec = importlib.util.find_spec("pypinyin")
    path = Path(spec.origin).parent / "pinyin_dict.py"
    module_spec = importlib.util.spec_from_file_location("_redline_pinyin_dict", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module.pinyin_dict


def _toneless(reading: str) -> str:
    bare = "".join(c for c in unicodedata.normalize("NFKD", reading) if not unicodedata.combining(c))
    return bare.replace("ü", "v").lower()


@functools.lru_cache(maxsize=1)
def _syllables() -> frozenset[str]:
    out = {_toneless(r) for readings in _pinyin_table().values() for r in readings.split(",")}
    return frozenset(s for s in out if s.isascii() and s.isalpha())


def first_reading(char: str) -> str:
    """A character's most common toneless reading (pypinyin lists it first), '' for none."""
    return _toneless(_pinyin_table().get(ord(char), "").split(",")[0])


@functools.lru_cache(maxsize=8192)
def _readings(char: str) -> frozenset[str]:
    """Every toneless reading of a character (行 -> {xing, hang, heng})."""
    return frozenset(_toneless(r) for r in _pinyin_table().get(ord(char), "").split(",") if r)


_MAX_PINYIN_WORD = 40  # letters; a longer "word" is not pinyin anyone typed


@functools.lru_cache(maxsize=4096)
def _segmentable(word: str) -> bool:
    """Can `word` be read as pinyin syllables one after another (zheng, yiyu, "")?"""
    if len(word) > _MAX_PINYIN_WORD:
        return False
    syllables = _syllables()
    ends = [True] + [False] * len(word)  # ends[i]: word[:i] is syllables
    for i in range(1, len(word) + 1):
        ends[i] = any(ends[i - n] and word[i - n:i] in syllables for n in range(1, min(6, i) + 1))
    return ends[-1]


@functools.lru_cache(maxsize=8)
def _pinyin_index(terms: tuple[Term, ...]) -> dict[str, list[tuple[str, Term]]]:
    """Each reading of a term's first character -> (term characters, term)."""
    index: dict[str, list] = {}
    for term in terms:
        chars = term.text.replace(" ", "")
        shortest = sum(min(map(len, _readings(c)), default=0) for c in chars)
        if term.cjk and not term.exact and _CJK_RUN.fullmatch(chars) and shortest >= _MIN_PINYIN_LETTERS:
            for reading in _readings(chars[0]):
                index.setdefault(reading, []).append((chars, term))
    return index


def _match_pinyin(units: list[str], u: int, offset: int, chars: str, latin_used: bool = False) -> bool:
    """Do `chars` (a term) read from units[u] at `offset` on, each character either as
    itself, as a character that sounds the same, or as one of its readings in Latin?"""
    if not chars:
        if offset and not _segmentable(units[u][offset:]):
            return False  # the match must end between two syllables of a Latin word
        return latin_used
    if u >= len(units):
        return False
    unit, char = units[u], chars[0]
    if _CJK.match(unit):
        return not offset and (unit == char or bool(_readings(unit) & _readings(char))) \
            and _match_pinyin(units, u + 1, 0, chars[1:], latin_used)
    for reading in _readings(char):
        if unit.startswith(reading, offset):
            end = offset + len(reading)
            following = (u + 1, 0) if end == len(unit) else (u, end)
            if _match_pinyin(units, *following, chars[1:], True):
                return True
    return False


def _pinyin_kinds(plain: str, terms: tuple[Term, ...]):
    if not _LATIN_WORD.search(plain):
        return
    syllables = _syllables()
    chunks = []
    present: set[str] = set()  # every syllable the text could be read as, and its characters
    for chunk in re.split(r"[^\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaffa-z\s]+", plain):
        units = _UNIT.findall(chunk)
        if not any(u.isascii() for u in units):
            continue
        chunks.append(units)
        for unit in set(units):
            if _CJK.match(unit):
                present.add(unit)
                present.update(_readings(unit))
            elif _segmentable(unit):
                present.update(unit[i:i + n] for i in range(len(unit)) for n in range(1, 7)
                               if unit[i:i + n] in syllables)
    # Only terms each of whose characters the text could hold: one pass over the terms
    # instead of one per Latin word (a text of 10,000 "yi" stays fast).
    index: dict[str, list] = {}
    for first, entries in _pinyin_index(terms).items():
        if first in present:
            viable = [(chars, term) for chars, term in entries
                      if all(c in present or _readings(c) & present for c in chars)]
            if viable:
                index[first] = viable
    if not index:
        return
    for units in chunks:
        for u, unit in enumerate(units):
            if _CJK.match(unit):
                starts = [(0, reading) for reading in _readings(unit)]
            elif _segmentable(unit):
                starts = [(offset, unit[offset:offset + n]) for offset in range(len(unit))
                          if _segmentable(unit[:offset]) for n in range(1, 7) if unit[offset:offset + n] in syllables]
            else:
                continue
            for offset, first in starts:
                for chars, term in index.get(first, ()):
                    if _match_pinyin(units, u, offset, chars) and not any(w in plain for w in term.unless) \
                            and not (_glossed(plain, chars) and names_nobody(plain, plain)):
                        yield term.kind


def _glossed(plain: str, chars: str) -> bool:
    """Whether the text holds other characters that read as the term `chars` does: pinyin
    written for them (给“小船”注音 xiao chuan, dian xian（电线）, yi yu shuang guan（一语双关）)
    is a reading exercise, not 哮喘, 癫痫 or 抑郁 in disguise, where it names nobody (王小船有
    xiaochuan is a pupil's asthma)."""
    for run in _CJK_RUN.findall(plain):
        for i in range(len(run) - len(chars) + 1):
            window = run[i:i + len(chars)]
            if window != chars and all(_readings(a) & _readings(b) for a, b in zip(window, chars)):
                return True
    return False


# --- typos ------------------------------------------------------------------------------

def _deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1:] for i in range(len(word))}


def within_one_edit(a: str, b: str) -> bool:
    """Damerau-Levenshtein distance of at most 1 (a swap of neighbours counts as one)."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return short in _deletes(long_)


@functools.lru_cache(maxsize=8)
def _typo_index(terms: tuple[Term, ...]) -> dict[str, list[Term]]:
    index: dict[str, list[Term]] = {}
    for term in terms:
        if not term.cjk and not term.exact and " " not in term.text and len(term.text) >= _MIN_TYPO_LETTERS:
            for key in _deletes(term.text) | {term.text}:
                index.setdefault(key, []).append(term)
    return index


@functools.lru_cache(maxsize=1)
def english_words():
    """English words as written (inflections included), from pyspellchecker's word list:
    a word people use in corpora, where misspellings such as depresion or seperated are not
    (the list keeps words seen at least 50 times). A term written exactly is found by
    term_kinds, so a real word is never read as a typo of another."""
    from spellchecker import SpellChecker

    return SpellChecker(language="en").word_frequency.dictionary


def _latin_typo_kinds(plain: str, terms: tuple[Term, ...]):
    index = _typo_index(terms)
    longest = max((len(key) for key in index), default=0) + 2
    vocabulary = english_words()
    for word in set(_LATIN_WORD.findall(plain)):
        if len(word) < _MIN_TYPO_LETTERS - 1 or word in vocabulary:
            continue
        whole = {word} if len(word) <= longest else set()
        for candidate in whole | {word[:n] for n in range(_MIN_TYPO_LETTERS - 1, min(len(word), longest))}:
            for key in _deletes(candidate) | {candidate}:
                for term in index.get(key, ()):
                    if (candidate == word or term.prefix) and within_one_edit(candidate, term.text) \
                            and not any(w in plain for w in term.unless):
                        yield term.kind


@functools.lru_cache(maxsize=8)
def _phrase_index(terms: tuple[Term, ...]) -> tuple[tuple[tuple[str, ...], Term], ...]:
    """The Latin terms of several words that may be misspelt (in prison, parents separated)."""
    return tuple((tuple(term.text.split()), term) for term in terms
                 if not term.cjk and not term.exact and " " in term.text)


def _latin_phrase_typo_kinds(plain: str, terms: tuple[Term, ...]):
    """A term of several words with one of them misspelt ("dad is in prizon", "parents
    seperated"): the others as written, the misspelt one no English word and within one
    edit of the term's, of _MIN_TYPO_LETTERS letters or more."""
    words = _LATIN_WORD.findall(plain)
    vocabulary = english_words()
    odd = [i for i, word in enumerate(words) if len(word) >= _MIN_TYPO_LETTERS - 1 and word not in vocabulary]
    if not odd:
        return
    for phrase, term in _phrase_index(terms):
        n = len(phrase)
        for i in odd:
            for slot, expected in enumerate(phrase):
                start = i - slot
                if start < 0 or start + n > len(words) or len(expected) < _MIN_TYPO_LETTERS:
                    continue
                here = words[start:start + n]
                if all(w == e for j, (w, e) in enumerate(zip(here, phrase)) if j != slot) \
                        and within_one_edit(words[i], expected) and not any(w in plain for w in term.unless):
                    yield term.kind


@functools.lru_cache(maxsize=1)
def _dictionary() -> dict[str, int]:
    import jieba

    jieba.dt.check_initialized()
    return jieba.dt.FREQ


@functools.lru_cache(maxsize=8)
def _anchor_index(terms: tuple[Term, ...]) -> dict[str, list[tuple[int, int, str, Term]]]:
    """For a term with its character i replaced, the first character left (at offset k)
    anchors it: char -> [(k, i, term text, term)], so a text is scanned once."""
    index: dict[str, list] = {}
    for term in terms:
        text = term.text.replace(" ", "")
        if term.cjk and not term.exact and not term.pinyin_only and len(text) >= 2 and _CJK_RUN.fullmatch(text):
            for i in range(len(text)):
                k = 1 if i == 0 else 0
                index.setdefault(text[k], []).append((k, i, text, term))
    return index


def _part_of_other_words(run: str, start: int, length: int) -> bool:
    """Does a dictionary word overlap the window and reach outside it (不过|民间 for 过民)?"""
    words = _dictionary()
    end = start + length
    for left in range(max(0, start - 3), end):
        for right in range(max(left + 2, start + 1), min(len(run), left + 4) + 1):
            if (left < start or right > end) and right > start and left < end and words.get(run[left:right], 0) > 0:
                return True
    return False


def _sound_alike(a: str, b: str) -> bool:
    return any(within_one_edit(x, y) for x in _readings(a) for y in _readings(b))


# A typo replaces a character of a word with one that sounds alike; a grammatical particle,
# a pronoun or a surname in that place is the sentence going on, not a typo (她养的小猫 is
# not 寄养).
_FUNCTION_CHARS = frozenset("与和的了是在有也都就而及或被把从向对给让为他她它我你")


def _cjk_typo_kinds(squeezed: str, plain: str, terms: tuple[Term, ...]):
    index = _anchor_index(terms)
    for run in _CJK_RUN.findall(squeezed):
        for p, char in enumerate(run):
            for k, i, original, term in index.get(char, ()):
                start = p - k
                window = run[start:start + len(original)]
                if start < 0 or len(window) < len(original) or window == original:
                    continue
                if window[:i] != original[:i] or window[i + 1:] != original[i + 1:]:
                    continue
                if not _sound_alike(window[i], original[i]):
                    continue
                if window[i] in _FUNCTION_CHARS or (i == 0 and window[0] in _SURNAMES):
                    continue  # 贫困与 is not 贫困户, 李明 is a name, not 失明
                if start > 0 and run[start - 1] in _NAME_BEFORE_TYPO:
                    continue  # after a surname, a given name: 褚家豪 is not 家暴, 严可儿 not 孤儿
                if len(original) == 2 and i == 1 and window[0] in _NAME_BEFORE_TYPO:
                    continue  # a surname and a given name: 唐梓(轩) is not 唐氏, 艾力(江) not 艾滋
                if _dictionary().get(window, 0) > 0 or any(w in plain for w in term.unless) \
                        or _part_of_other_words(run, start, len(original)):
                    continue
                yield term.kind


# --- lessons about a condition ----------------------------------------------------------

# A lesson request about a condition is not somebody's condition ("讲讲糖尿病人为什么要控制
# 血糖", "Explain angles of depression"): a text that starts with a teaching verb and names
# nobody (no pronoun, no "this student", no surname-and-name before 的/有/患/是) is exempt
# from the term and situation rules; so is a text about a topic rather than a pupil (抑郁症主题的
# 心理课, 单亲家庭题材的小说, 文中母亲去世, a general question, a notice, a story). Numbers and
# grades have no such exemption, except a place in a ranking (core.redline._score_exemption).
# Each list once, read by _LESSON_OR_TOPIC and by the narrower _TEACHING below.
_REQUEST_LEAD = r"^\s*(?:请|帮我|给我|麻烦)?\s*(?:给(?:学生|孩子|同学)们?|给全班|给大家)?\s*"
_EXPLAIN = "讲讲|讲解|讲一下|讲一讲|科普"  # verbs of explaining
_TOPIC_LESSONS = "心理|健康|卫生|安全|生物|科学|科普|青春期|历史|语文|政治|道法"  # lessons that may be about a condition
_OTHER_LESSONS = "化学|物理|数学|地理|英语|美术|音乐|信息|社会|劳动"  # not 体育, which a sick note names
_LESSON_COLON = r"课\s*(?:[:：]|讲|上讲|要讲)"  # 生物课：, 化学课讲…
_EN_TOPIC_SUBJECTS = "biology|science|health|pshe"
_EN_OTHER_SUBJECTS = "chemistry|physics|history|geography"
_LESSON_OR_TOPIC = re.compile(
    _REQUEST_LEAD +
    r"(?:(?:老师|我|用户)\s*(?:想|要|希望|打算|准备|需要|计划)?\s*)?"
    rf"(?:{_EXPLAIN}|讲|介绍|出一份|出一套|出一道|出几道|出|设计|写一篇|写一份|写一封|写|准备|做一份|制作|复习|总结|"
    r"分析一下|整理|讨论|提醒|通知|组织|开一次|开一节|如何|怎样|怎么)|"
    r"(?:关于|有关)[^，,。.;；]{1,16}的(?:题|课|练习|试卷|教案|课件|班会|阅读|作文|应用题|讲座|宣传)|"
    # A topic, not a pupil: 抑郁症主题的心理课, 单亲家庭题材的小说, 议论文题目, 文中母亲去世
    r"主题|题材|议论文|范文|阅读题|文中|课文|小说|诗中|作文题|讲座|班会|宣传|疫苗|接种|故事|童话|寓言|绘本|"
    # a notice, not "notified": 已通知家长, 通知了班主任
    r"(?<![已并及刚会要先再])通知(?!了|过|到|家长|家里|父母|监护人|班主任|他|她|本人)|"
    r"高发|流行季|季节性|预防|规定|制度|政策|温馨提示|提示|注意事项|须知|"
    r"(?:数学|应用|练习|例|阅读)题|题目|(?<![\u4e00-\u9fff])某(?!同学|学生|生)|"
    rf"(?:通用|政策|一般性)?建议|常识|知识|(?:{_TOPIC_LESSONS})(?:教育)?课|"
    # a lesson of another subject about a condition (化学课讲湿疹药膏)
    rf"(?:{_OTHER_LESSONS}){_LESSON_COLON}|"
    rf"\((?:{_EN_TOPIC_SUBJECTS})\)|"
    rf"\b(?:{_EN_TOPIC_SUBJECTS})\s+(?:lesson|class|unit)\b|^\s*(?:{_EN_TOPIC_SUBJECTS})\s*:|"
    r"^\s*(?:unit|lesson|chapter)\s+\d+\s*(?::|covers|is about)|^\s*(?:revision|study|lesson|class)\s+notes?\s*:|"
    r"^\s*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)(?:explain|teach|describe|introduce|summari[sz]e)\b|"
    r"^\s*(?:please\s+)?(?:(?:the\s+)?teacher\s+(?:wants|would like|plans)\s+to\s+)?(?:explain|teach|create|make|write|"
    r"prepare|design|review|introduce|summari[sz]e|discuss|describe|plan|draft|outline|cover|remind|organi[sz]e|"
    r"inform|tell\s+parents)\b|\b(?:programme|program|campaign|assembly|awareness|essay\s+topic|in\s+general|"
    r"story|novel|poem|fairy\s+tale|the\s+book|the\s+text|the\s+film|character|lesson|worksheet|topic|pandemic|"
    r"epidemic|outbreak|whole\s+class|all\s+students|everyone)\b|"
    r"^\s*(?:how|what|why|when|which|any|ideas|tips|ways)\b")
_SURNAMES = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜"
             "崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤")
#: a surname before a typo's window makes the window a given name (褚家豪, 严可儿), and so
#: does one that starts a two-character window (唐梓轩 is not 唐氏): more surnames than
#: _SURNAMES, which _PERSON reads before 的/有 and so keeps to the commonest
_NAME_BEFORE_TYPO = frozenset(_SURNAMES + "褚俞庞樊殷施洪翟颜倪牛温季葛伍柴岳申骆邢祝聂凌柯柏乔穆齐易喻饶艾邬阮祁苗耿"
                                          "梅裴戚舒缪詹蓝卫欧鲁韦滕")
#: a Chinese name: a surname and one or two characters (a roster's 丁浩然, not 去逝 or 跟妈妈)
CJK_NAME = rf"[{''.join(sorted(_NAME_BEFORE_TYPO))}][\u4e00-\u9fff]{{1,2}}"
_AFTER_NAME = "的|有|患|得|是|确诊|被|要|在|因|需|不能|最近|一直|经常|总是|前天|昨天|今天|上周|这周|上次|这两天|这几天|刚才"
_PERSON = re.compile(
    rf"他|她|该生|此生|这(?:个|名|位)?(?:学生|同学|孩子)|我班|班上|班里|小(?![说学组时数节题结区船鸟狗猫])[\u4e00-\u9fff](?={_AFTER_NAME})|"
    rf"(?<![如任为几奈])[{_SURNAMES}][\u4e00-\u9fff]{{1,2}}(?={_AFTER_NAME})|\b(?:he|she|his|her|him|they)\b")
# An English name in mid-sentence: "Explain Tom's ADHD" (not "the novel's").
# Not a disease named after a person (has Alzheimer's, Crohn's).
_EPONYMS = r"(?!(?:Alzheimer|Parkinson|Crohn|Asperger|Tourette|Huntington|Down|Hodgkin|Addison|Graves|Bell|Raynaud|Osgood)'s)"
_EN_NAME = re.compile(rf"(?<=[a-z,;:] ){_EPONYMS}[A-Z][a-z]+(?:\s[A-Z]\.)?(?='s\b|\s+(?:has|is|was|had|suffers|takes|gets|got|"
                      rf"will|needs|missed|misses|can't|won't)\b)|"
                      rf"^\s*{_EPONYMS}[A-Z][a-z]+'s\b")


def names_nobody(text: str, plain: str) -> bool:
    """Does `text` (normalized: `plain`) point at no person (他, 该生, 小王, 王小明同学,
    "Tom's", "Amy has")?"""
    return not _PERSON.search(plain) and not _EN_NAME.search(fold(text))


# A reading passage, a story or a novel (阅读题里的小明考试没及格, "In the novel, Jo fails
# her exams"): its people and their marks are made up. Not a test's reading part (阅读理解只得了
# 12分).
_FICTION = re.compile(r"(?:阅读题|阅读材料|课文|小说|故事|童话|寓言|绘本|剧本)(?:里|中)的?|(?<![语课])文中|"
                      r"\b(?:in\s+the\s+(?:story|novel|book|play|poem|film|passage|extract)|story\s+starter|"
                      r"protagonist|main\s+character)\b")


def fiction(text: str, plain: str) -> bool:
    """Is `text` (normalized: `plain`) about a story or a reading passage, naming nobody real?"""
    return bool(_FICTION.search(plain)) and names_nobody(text, plain)


# A request for teaching material, by how it starts: a verb of explaining (讲讲, 科普, "explain",
# "could you teach"), or a lesson's subject and a colon (生物课：, "Biology:"); not 帮我写一份…,
# which as often goes on to a pupil (帮我写一份家访记录：吴梓涵父亲失业半年). Narrower than
# _LESSON_OR_TOPIC, which also holds words of topics (建议, 知识, 故事) that a note about a
# pupil may use: the judge's own verdict is set aside on this one only.
_TEACHING = re.compile(
    rf"{_REQUEST_LEAD}(?:{_EXPLAIN})|"
    rf"^\s*(?:{_TOPIC_LESSONS}|{_OTHER_LESSONS})(?:教育)?{_LESSON_COLON}|"
    r"^\s*(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?:explain|teach)\b|"
    rf"^\s*(?:{_EN_TOPIC_SUBJECTS}|{_EN_OTHER_SUBJECTS})\s*:")


def teaching_request(text: str, plain: str) -> bool:
    """Does `text` (normalized: `plain`) start as a request for teaching material, naming nobody?"""
    return bool(_TEACHING.search(plain)) and names_nobody(text, plain)


def lesson_request(text: str, plain: str) -> bool:
    """Is `text` (normalized: `plain`) a request for teaching material that names nobody?"""
    return bool(_LESSON_OR_TOPIC.search(plain)) and names_nobody(text, plain)


# --- all together -----------------------------------------------------------------------

def term_kinds(text: str, plain: str, terms: tuple[Term, ...]):
    """Yield the kind of every term found in `text` (original) / `plain` (normalized)."""
    squeezed = _SPACES.sub("", plain)
    for kind, patterns in compiled(terms).items():
        if (patterns.cjk is not None and patterns.cjk.search(squeezed)) \
                or (patterns.latin is not None and patterns.latin.search(plain)) \
                or (patterns.case_sensitive is not None and patterns.case_sensitive.search(fold(text))):
            yield kind
    for term in terms:
        if term.unless and not term.pinyin_only and _contextual_hit(term, plain, squeezed):
            yield term.kind


# A medicine taken: "Henry takes Prozak", "she's on sertaline". A medicine's name is written
# exactly elsewhere (a typo's neighbour is often another word: meditation), but after one of
# these words a misspelt one is still the medicine.
_TAKES = re.compile(r"\b(?:takes?|taking|took|on|prescribed|started|starting|given|gets?|needs?|using|uses)\s+"
                    r"(?:(?:his|her|their|a|the|daily|some)\s+)?([a-z]{5,})\b")


def _medicine_typo_kinds(plain: str, terms: tuple[Term, ...]):
    vocabulary = english_words()
    for word in _TAKES.findall(plain):
        if word in vocabulary:
            continue
        for term in terms:
            if term.medicine and not term.cjk and term.text != word and within_one_edit(word, term.text):
                yield term.kind


def fuzzy_term_kinds(plain: str, terms: tuple[Term, ...]):
    """Yield the kind of every term found written in pinyin or with one typo."""
    yield from _pinyin_kinds(plain, terms)
    yield from _latin_typo_kinds(plain, terms)
    yield from _latin_phrase_typo_kinds(plain, terms)
    yield from _medicine_typo_kinds(plain, terms)
    yield from _cjk_typo_kinds(_SPACES.sub("", plain), plain, terms)
