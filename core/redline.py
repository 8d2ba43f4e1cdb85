"""Red line 2: a deterministic filter for sensitive personal data.

The extraction prompt (red line 1) asks the model not to propose identity numbers,
grades, health conditions or family circumstances. Models ignore prompts, so before
any fact is stored, confirmed, typed in by hand or injected, these pure functions
look for the data itself:

- ``id_number``: a mainland identity number, 18 characters whose GB 11643 check digit
  is valid (or whose region and birth date are plausible: a mistyped check digit is
  still somebody's number), or the 15-digit legacy form;
- ``phone``: a mainland mobile number (1[3-9] and nine digits, with or without +86,
  spaces or dashes) or a landline written with its area code;
- ``bank_card``: 13 to 19 digits that pass the Luhn check;
- ``score``: a grade, score or ranking (考了85分, 数学92, 排名第3, 第3名, GPA 3.7,
  scored 85, 85/100, 不及格 …);
- ``health`` and ``family``: a term of the reviewed list in data/sensitive_terms.txt.

A result names the KIND of data found, never the text, so callers can say what was
refused without repeating it.
"""

import functools
import re
import unicodedata
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

from django.utils.translation import gettext_lazy as _

KINDS = ("id_number", "phone", "bank_card", "score", "health", "family")

KIND_LABELS = {
    "id_number": _("身份证件号码"),
    "phone": _("电话号码"),
    "bank_card": _("银行卡号"),
    "score": _("成绩或排名"),
    "health": _("健康状况"),
    "family": _("家庭情况"),
}

TERMS_FILE = Path(__file__).resolve().parent / "data" / "sensitive_terms.txt"


@dataclass(frozen=True)
class Verdict:
    """What the filter found: the kinds of sensitive data, in KINDS order."""

    kinds: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.kinds

    @property
    def kind(self) -> str | None:
        return self.kinds[0] if self.kinds else None

    def __bool__(self) -> bool:  # truthy when something sensitive was found
        return bool(self.kinds)


def check(text: str) -> Verdict:
    """Every kind of sensitive data in `text` (an empty Verdict when it is clean)."""
    if not text:
        return Verdict()
    plain = normalize(text)
    found = set(_number_kinds(plain))
    found.update(_disguised_number_kinds(plain))
    if _has_score(plain):
        found.add("score")
    found.update(_term_kinds(plain))
    return Verdict(tuple(kind for kind in KINDS if kind in found))


def is_sensitive(text: str) -> bool:
    return bool(check(text))


# --- normalisation ----------------------------------------------------------------------

_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e"
                        "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]")


def normalize(text: str) -> str:
    """Full-width digits and letters to ASCII (NFKC), invisible characters removed."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))


# --- numbers: identity, phone, bank card ------------------------------------------------

_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def id18_check_digit(first17: str) -> str:
    """The GB 11643-1999 check character for the first 17 digits of an identity number."""
    total = sum(int(digit) * weight for digit, weight in zip(first17, _ID_WEIGHTS, strict=True))
    return _ID_CHECK[total % 11]


def _plausible_date(year: int, month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= 31 and 1900 <= year <= 2099


def is_id_number(s: str) -> bool:
    s = s.upper()
    if len(s) == 18 and s[:17].isdigit() and (s[17].isdigit() or s[17] == "X"):
        if id18_check_digit(s[:17]) == s[17]:
            return True
        # A wrong check digit is most often a typo in a real number: region and birth
        # date are enough to refuse it.
        return s[0] != "0" and _plausible_date(int(s[6:10]), int(s[10:12]), int(s[12:14]))
    if len(s) == 15 and s.isdigit():
        return s[0] != "0" and _plausible_date(1900 + int(s[6:8]), int(s[8:10]), int(s[10:12]))
    return False


def luhn_ok(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


_MOBILE = re.compile(r"(?:0086|86)?1[3-9]\d{9}")


def is_mobile(digits: str) -> bool:
    return bool(_MOBILE.fullmatch(digits))


def is_bank_card(digits: str) -> bool:
    return digits.isdigit() and 13 <= len(digits) <= 19 and len(set(digits)) > 1 and luhn_ok(digits)


# A group of digits (an identity number may end in X); groups joined by a space or a
# dash form one number as people write them: 138 1234 5678, 6222-0212-3456-7890.
_DIGIT_GROUP = re.compile(r"\d+(?:[Xx](?![A-Za-z]))?")
_GROUP_GAP = re.compile(r"[ \t\u00a0\-‐‑‒–—]{1,3}")
_MAX_GROUPS = 8
_LANDLINE = re.compile(r"(?<![\d-])0[1-9]\d{1,2}[-)]\s?[2-9]\d{6,7}(?![\d-])|[(]0[1-9]\d{1,2}[)]\s?[2-9]\d{6,7}(?!\d)")


def _joinable(previous: str, group: str) -> bool:
    # People group these numbers in threes and fours (138 1234 5678, 6222 0212 …), after
    # an optional 86; shorter groups are lists ("1-3-5-7-9-11-13") and never joined.
    return (len(previous) >= 3 or previous in ("86", "0086")) and len(group) >= 3 \
        and not previous[-1:].isalpha()


def _digit_chains(text: str) -> list[list[str]]:
    chains, current, last_end = [], [], None
    for match in _DIGIT_GROUP.finditer(text):
        gap = text[last_end:match.start()] if last_end is not None else None
        if current and gap is not None and _GROUP_GAP.fullmatch(gap) and _joinable(current[-1], match.group()):
            current.append(match.group())
        else:
            if current:
                chains.append(current)
            current = [match.group()]
        last_end = match.end()
    if current:
        chains.append(current)
    return chains


def _number_kinds(text: str):
    if _LANDLINE.search(text):
        yield "phone"
    for groups in _digit_chains(text):
        # Every contiguous run of groups, so that "110105194912310021 13812345678"
        # is seen as an identity number and a phone number, not one long number.
        for start in range(len(groups)):
            for end in range(start + 1, min(len(groups), start + _MAX_GROUPS) + 1):
                candidate = "".join(groups[start:end])
                if "X" in candidate.upper()[:-1]:
                    continue
                if is_id_number(candidate):
                    yield "id_number"
                elif candidate.isdigit():
                    if is_mobile(candidate):
                        yield "phone"
                    elif is_bank_card(candidate):
                        yield "bank_card"


# Numbers written to slip past the groups above: 138.1234.5678, (138) 1234-5678,
# 138/1234/5678, 1 3 8 1 2 3 4 5 6 7 8, or spelled digit by digit 一三八一二三四五六七八.
# The whole run's digits must form the number, so dates and times next to each other
# ("2023.10.15 13:45") are not read as one.
_SPELLED_DIGITS = re.compile(r"[零〇一二三四五六七八九幺]{7,}")
_SPELLED_MAP = str.maketrans("零〇一二三四五六七八九幺", "001234567891")
_SEPARATED_DIGITS = re.compile(r"[(（]?\d(?:[\s.\-_/,·()（）]{1,3}\d|\d){10,}[Xx]?")


def _disguised_number_kinds(text: str):
    spelled = _SPELLED_DIGITS.sub(lambda m: m.group().translate(_SPELLED_MAP), text)
    for match in _SEPARATED_DIGITS.finditer(spelled):
        groups = re.findall(r"\d+[Xx]?", match.group())
        if groups and groups[0] in ("86", "0086"):
            groups = groups[1:]
        # Digit by digit, or in groups of three and four; mixed short groups are a list
        # ("题号 1-3-5-7-9-11-13-15"), not a number.
        if not (all(len(g) == 1 for g in groups) or all(len(g) >= 3 for g in groups)):
            continue
        digits = re.sub(r"[^\dXx]", "", match.group()).upper()
        if is_id_number(digits):
            yield "id_number"
        elif digits.isdigit():
            if is_mobile(digits):
                yield "phone"
            elif is_bank_card(digits):
                yield "bank_card"


# --- grades, scores and rankings --------------------------------------------------------

_CN_NUM = "[一二三四五六七八九十百零两]+"
_NUM = rf"(?:\d+|{_CN_NUM})"
_SUBJECTS = ("语文|数学|英语|外语|物理|化学|生物|历史|地理|政治|道法|道德与法治|科学|信息技术|体育|音乐|美术|"
             "理综|文综|平均分|均分|考分|成绩|分数|得分")
# What may follow a number that is NOT a score: 45分钟, 第3章, 10道题, 教了20年 …
_NOT_A_SCORE_UNIT = r"分钟|章|节|课|题|道|页|个|人|名|班|级|届|次|周|天|小时|年|岁|篇|套|份|册|单元|讲|词|本|组|号|楼|室|%|[.．]\d|\d"

_SCORE_PATTERNS_ZH = [
    # 数学92, 数学 92 分, 语文考了88, 英语成绩76, 物理期末 85, 平均分78, 成绩：90
    rf"(?:{_SUBJECTS})\s*(?:成绩|分数|考试|期中|期末|月考|测验)?\s*(?:[:：是为]|考了?|考得|得了?|拿了?|只有|才)?\s*"
    rf"\d{{2,3}}(?:\.\d+)?(?!\s*(?:{_NOT_A_SCORE_UNIT}))",
    # 考了85分, 只考了59, 拿了满分, 得了零分
    r"(?:考了|考得|考到|考出|只考|才考|得了|拿了|没考到|考试得)\s*(?:\d{1,3}(?:\.\d+)?\s*(?:分(?!钟)|(?![\s\u4e00-\u9fff\d]))"
    r"|满分|零分|" + _CN_NUM + r"分(?!钟))",
    # 总分620 (but not 试卷总分150 / 卷面总分)
    r"(?<![卷面])总分\s*(?:[:：是为]|考了?|达到)?\s*\d{2,3}",
    # 排名第3, 排名前10, 年级排名 5
    rf"排名\s*(?:第|前|后|倒数第?)?\s*{_NUM}",
    # 年级排第三, 排在倒数第二 (but not 安排第3周)
    rf"(?<![安编彩并])排(?:在|到)?\s*(?:第|倒数第?)\s*{_NUM}(?![\d一二三四五六七八九十百]|\s*[节周章课天页题单元行列组排次])",
    # 第3名, 第一名, 前十名, 名次 12
    rf"第\s*{_NUM}\s*名(?![称字著言师校胜句篇家单])",
    rf"前\s*{_NUM}\s*名(?![称字著言师校胜句篇家单])",
    rf"倒数\s*第?\s*{_NUM}(?![\d一二三四五六七八九十百]|\s*[节周章课天页题单元行列排秒分时])",
    rf"名次\s*[:：是为]?\s*(?:第)?\s*{_NUM}",
    # 绩点3.5, 85/100, 3.7/4.0
    r"绩点\s*[:：是为]?\s*\d",
    r"(?<![\d/.])\d{1,3}(?:\.\d+)?\s*/\s*(?:100|120|150|750|4\.0|5\.0)(?![\d/.])",
    # 数学九十二分, 英语考了七十分
    rf"(?:{_SUBJECTS})\s*(?:考了?|得了?|拿了?)?\s*{_CN_NUM}分(?!钟)",
    # Words that are themselves a grade.
    r"不及格|没及格|没有及格|挂科|考砸|零分",
]

_SCORE_PATTERNS_EN = [
    r"(?<!\bis )(?<!\bare )(?<!\bbe )\bscored\s+(?:(?:a|an|only|just|about|around|nearly|over|under|below|above)\s+)*\d",
    r"\bscores?\s+(?:of|was|were|is|are|:|=)\s*\d",
    r"\b(?:test|exam|quiz|math|maths|english|physics|chemistry|biology|history|science|final|midterm|sat|act|his|her|"
    r"their)\s+(?:scores?|marks?|results?)\s*(?:of|was|were|is|are|:|=)?\s*\d",
    r"\bgrades?\s*(?:was|were|:|=)\s*\d",
    r"\bgrade\s+of\s+\d{2,3}\b",
    r"\bmarks?\s*(?:of|was|were|:|=)\s*\d",
    r"\b(?:got|gets|get|received|receives|earned|earns|achieved|made)\s+(?:(?:a|an|only|just)\s+)?\d{1,3}(?:\.\d+)?"
    r"\s*(?:%|percent|points?|marks?|/|out\s+of|on|in)",
    r"\b(?:got|gets|get|received|receives|earned|earns)\s+(?:an?\s+)?[\"'“]?(?-i:[A-F])[+-]?[\"'”]?\s+(?:in|on|for)\b",
    r"\b(?:got|gets|get|scored|received)\s+full\s+marks\b",
    r"\bGPA\s*(?:of|is|was|:|=)?\s*\d",
    r"\b(?:math|maths|english|physics|chemistry|biology|history|science|chinese)\s*\d{2,3}(?:\.\d+)?\s*(?:分(?!钟)|points?\b|marks?\b)",
    r"\d\.\d+\s*GPA\b",
    r"\brank(?:ed|s|ing)?\s+(?:#\s*|no\.?\s*|number\s+)?\d+",
    r"\b\d+(?:st|nd|rd|th)\s+(?:place|in\s+(?:the\s+|his\s+|her\s+|their\s+)?(?:class|grade|year|school|form|cohort))\b",
    r"\b(?:top|bottom)\s+\d+\s*(?:%|percent)?\s+(?:of|in)\s+(?:the\s+|his\s+|her\s+|their\s+)?"
    r"(?:class|grade|year|school|cohort|form)",
    r"\b\d+(?:st|nd|rd|th)\s+percentile\b",
    r"\b(?:failed|flunked|flunks|fails)\s+(?:the\s+|his\s+|her\s+|their\s+|an?\s+)?(?:\w+\s+)?"
    r"(?:exam|test|quiz|class|course|subject|module|final|midterm|paper|maths?|english|physics|chemistry|biology|"
    r"history)",
    r"\bfailing\s+(?:grade|mark|score)s?\b",
    r"\b\d{1,3}\s*(?:%|percent)\s+(?:on|in)\s+(?:the|his|her|their|a|an)\s+(?:\w+\s+)?(?:exam|test|quiz|final|"
    r"midterm|paper)",
]

_SCORE = re.compile("|".join(f"(?:{p})" for p in chain(_SCORE_PATTERNS_ZH, _SCORE_PATTERNS_EN)), re.IGNORECASE)


def _has_score(text: str) -> bool:
    return bool(_SCORE.search(text))


# --- health and family terms ------------------------------------------------------------

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_SPACES = re.compile(r"\s+")


@functools.lru_cache(maxsize=1)
def _term_patterns() -> tuple[tuple[str, re.Pattern, re.Pattern | None], ...]:
    """Per kind: one pattern for CJK terms (matched with spaces removed) and one for Latin terms."""
    sections: dict[str, dict[str, list[str]]] = {}
    kind = None
    for raw in TERMS_FILE.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            kind = line[1:-1].strip()
            if kind not in KINDS:
                raise ValueError(f"{TERMS_FILE.name}: unknown kind [{kind}]")
            sections.setdefault(kind, {"cjk": [], "latin": []})
            continue
        if kind is None:
            raise ValueError(f"{TERMS_FILE.name}: a term before the first [kind] section")
        term = normalize(line)
        sections[kind]["cjk" if _CJK.search(term) else "latin"].append(term)
    compiled = []
    for kind, terms in sections.items():
        cjk = re.compile("|".join(re.escape(t) for t in sorted(terms["cjk"], key=len, reverse=True))) \
            if terms["cjk"] else None
        latin = [_latin_term(t) for t in terms["latin"]]
        compiled.append((kind, cjk, re.compile("|".join(latin)) if latin else None))
    return tuple(compiled)


def _latin_term(term: str) -> str:
    case_sensitive = term.startswith("=")
    term = term.lstrip("=")
    prefix = term.endswith("*")
    body = re.escape(term.rstrip("*")).replace(r"\ ", r"\s+")
    pattern = rf"\b{body}" + (r"\w*" if prefix else r"\b")
    return pattern if case_sensitive else f"(?i:{pattern})"


def _term_kinds(text: str):
    squeezed = _SPACES.sub("", text)
    for kind, cjk, latin in _term_patterns():
        if (cjk is not None and cjk.search(squeezed)) or (latin is not None and latin.search(text)):
            yield kind
