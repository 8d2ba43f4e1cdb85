"""Red line 2 (v3): a deterministic filter for sensitive personal data.

The extraction prompt (red line 1) asks the model not to propose identity numbers,
grades, health conditions or family circumstances. Models ignore prompts, and people
disguise what they type, so before any fact is stored, confirmed, typed in by hand,
summarised, archived or injected, ``check(text)`` looks for the data itself, on
``core.normalize.normalize(text)``: digits in any script or in words, split in pairs,
hidden by invisible or tag characters or HTML entities, traditional characters, look-alike
letters and A.D.H.D are all folded before any rule runs.

The rules are a table (``RULES``): each has a name, the KIND it reports, a function of the
normalized text, and positive and negative examples that tests/core/test_redline.py runs.

- ``id_number``: a mainland identity number (GB 11643 check digit, or a plausible region and
  birth date: a mistyped check digit is still somebody's number), or the 15-digit legacy form;
- ``phone``: a mainland mobile number (1[3-9] and nine digits, after an optional 86) or a
  landline written with its area code (not an institution's public line: 学校教务处电话, the
  school office number);
- ``bank_card``: 13 to 19 digits that pass the Luhn check;
- ``score``: a grade, score, level, rank or pass/fail (core/redline/scores.py);
- ``health`` and ``family``: a term of the reviewed list in core/data/sensitive_terms.txt,
  also in pinyin and with one typo (core/redline/terms.py), or a situation written as a
  sentence (视力 4.3, 肚子疼, 得了甲流, 坐了牢, 家里条件很差: core/redline/situations.py).

What counts (issue 9): a person's own result, condition or circumstance. A class's statistic,
a question's or a paper's score, a place in a race or a sorted list, and a lesson, story or
general question about a condition that names nobody are not refused. A sick-leave note (病假)
is health data about the pupil and is refused; a personal-leave note (事假) is not.

A result names the KIND of data found, never the text, so callers can say what was
refused without repeating it.

Two entry points: `check(text)` is the rules alone (deterministic, microseconds, cached):
summaries, archived outputs, documents, recall entries and every injection of those.
`screen(text)` adds the learned judge (core/redline/learned.py) for what is meant to become
a remembered fact (typed, edited, confirmed, proposed by extraction): one sentence about
one person, where the rules' words misjudge most; `recheck(text)` is the same decision
for a stored fact before each injection.
"""

import codecs
import functools
import html
import json
import os
import re
import unicodedata
from collections.abc import Callable
from urllib.parse import unquote_plus
from dataclasses import dataclass, field

from django.utils.translation import gettext_lazy as _

from core.normalize import READ_BACKWARDS, ROT13, disguised, encodings_decoded, normalize
from core.redline import learned, scores, situations, terms
from core.redline.numbers import (id18_check_digit, is_bank_card, is_id_number, is_mobile, luhn_ok, number_kinds,
                                  public_line, signs_read_as_digits)
from core.redline.terms import TERMS_FILE

__all__ = ["KINDS", "KIND_LABELS", "NUMBER_KINDS", "RULES", "TERMS_FILE", "Rule", "Verdict", "check",
           "id18_check_digit", "is_bank_card", "is_id_number", "is_mobile", "is_sensitive", "luhn_ok", "recheck",
           "redact", "screen"]

KINDS = ("id_number", "phone", "bank_card", "score", "health", "family")

KIND_LABELS = {
    "id_number": _("身份证件号码"),
    "phone": _("电话号码"),
    "bank_card": _("银行卡号"),
    "score": _("成绩或排名"),
    "health": _("健康状况"),
    "family": _("家庭情况"),
}


@dataclass(frozen=True)
class Verdict:
    """What the filter found: the kinds of sensitive data, in KINDS order."""

    kinds: tuple[str, ...] = ()
    #: the kinds found in a table or a record of a person (table_view, record_view): a
    #: column or a key said what the value is, which no sentence model reads better
    in_records: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.kinds

    @property
    def kind(self) -> str | None:
        return self.kinds[0] if self.kinds else None

    def __bool__(self) -> bool:  # truthy when something sensitive was found
        return bool(self.kinds)

    def labels(self) -> str:
        """The kinds in words, for a person (成绩或排名、健康状况)."""
        return "、".join(str(KIND_LABELS[kind]) for kind in self.kinds)


@dataclass(frozen=True)
class Rule:
    """One named rule: `find(text, plain)` gets the original and the normalized text."""

    name: str
    kind: str
    find: Callable[[str, str], bool] = field(repr=False)
    positives: tuple[str, ...] = ()
    negatives: tuple[str, ...] = ()


# --- the rules --------------------------------------------------------------------------

@functools.lru_cache(maxsize=256)
def _numbers_in(plain: str) -> frozenset[str]:
    return frozenset(number_kinds(plain))


# A number made up for an exercise (用虚构号码11010519491231002X出一道校验码练习题; a Luhn
# exercise "using the made-up card number 4539 …") is nobody's: the text says the number is
# invented, asks for teaching material, and names no person. Said of a person's number
# (把刘佳怡的身份证号…当示例) or without the exercise, the number is refused.
_MADE_UP = re.compile(r"虚构|虚拟|假设|编造|编的|捏造|示例|样例|范例|假的|测试用|测试卡|沙箱|\bsandbox\b|"
                      r"\b(?:made[\s\-]up|fictional|fictitious|invented|imaginary|hypothetical|fake|dummy|sample|"
                      r"example|test)\s+(?:(?:id|identity|card|credit|debit|bank|phone|mobile|telephone|account)\s+)*"
                      r"(?:numbers?|cards?|ids?)\b", re.ASCII)
_EXERCISE = re.compile(r"练习|习题|例题|出题|出一道|出几道|题目|作业题|校验|算法|课件|教案|编程课|信息课|"
                       r"\b(?:exercises?|worksheets?|questions?|problems?|lessons?|algorithm|check\s+digit|lab|coding|"
                       r"checksum|activity|quiz)\b", re.ASCII)


# A word problem (例题：小丽语文考了90分，数学比语文少12分，数学考了多少分？; "Set a
# question: Ali got 3/5 on Monday …, what fraction overall?") names its pupils and their
# marks, all made up: a label says it is an exercise, and it asks for a computation. "Question:
# Tom failed maths, what should I tell his parents?" is neither, and stays refused.
_WORD_PROBLEM_LABEL = re.compile(
    r"^\s*[【\[(（]?\s*(?:例题|例|练习题?|习题|应用题|思考题|数学题|题目|出一道(?:应用|数学)?题|编一道(?:应用|数学)?题)\s*\d*"
    r"\s*[】\])）]?\s*[:：]|"
    r"^\s*(?:example|exercise|word\s+problem|maths?\s+problem)\s*\d*\s*[:.]|"
    r"^\s*(?:please\s+)?(?:set|write|make|create|give\s+me)\s+an?\s+(?:word\s+|maths?\s+)?(?:problem|question|exercise)\b|"
    # … or at the end: 小芳期中考了85分，期末考了93分，提高了百分之几？出成六年级的题。
    r"(?:出成|改成|编成|改编成|做成|写成)[^，,。.;；\n]{0,10}(?:题|练习|习题)\s*[。.!！]?\s*$|"
    r"\b(?:turn|make|rewrite)\s+(?:this|it)\s+(?:into|as)\s+an?\s+(?:word\s+|maths?\s+)?(?:problem|question)\b")
_WORD_PROBLEM_ASKS = re.compile(
    r"求|多少|几分|几道|几个|平均|百分之几|几成|"
    r"\b(?:how\s+many|how\s+much|what\s+(?:fraction|percentage|proportion)|what(?:\s+(?:is|was|were)|'s)\s+(?:the|his|her|their)\s+"
    r"(?:average|mean|total|median)|what\s+did\s+(?:he|she|they)\s+(?:score|get)|find|calculate|work\s+out)\b")


def word_problem(text: str, plain: str) -> bool:
    """Is `text` (normalized: `plain`) a word problem, whose pupils and marks are made up?"""
    return bool(_WORD_PROBLEM_LABEL.search(plain) and _WORD_PROBLEM_ASKS.search(plain))


def made_up_for_exercise(text: str, plain: str) -> bool:
    """Does `text` say that its number is invented for teaching material, naming nobody?"""
    return bool(_MADE_UP.search(plain) and _EXERCISE.search(plain)) and terms.names_nobody(text, plain)


def _number_rule(kind: str) -> Callable[[str, str], bool]:
    return lambda text, plain: kind in _numbers_in(plain) and not made_up_for_exercise(text, plain)


@functools.lru_cache(maxsize=1)
def _terms() -> tuple[terms.Term, ...]:
    return terms.load_terms(TERMS_FILE, KINDS)


@functools.lru_cache(maxsize=256)
def _terms_in(text: str, plain: str) -> frozenset[str]:
    return frozenset(terms.term_kinds(text, plain, _terms()))


@functools.lru_cache(maxsize=256)
def _fuzzy_terms_in(plain: str) -> frozenset[str]:
    return frozenset(terms.fuzzy_term_kinds(plain, _terms()))


def _regex_rule(pattern: str, *, unless: Callable[[str, str], bool] | None = None,
                original: bool = False) -> Callable[[str, str], bool]:
    """A rule that finds `pattern` in the normalized text (and in the text as written, with
    `original`: normalize() drops an emoji inside a word, 刘老师🤰四个月了)."""
    # ASCII: \b and \w mean English word edges, so "他GPA是2.8" has one before "gpa".
    compiled = re.compile(pattern, re.ASCII)

    def found(text: str, plain: str) -> bool:
        return compiled.search(plain) is not None or (original and compiled.search(text) is not None)

    if unless is None:
        return found
    return lambda text, plain: found(text, plain) and not unless(text, plain)


#: rules that find what people say instead of a word: what they find stands (written_in_disguise)
#: (hurting oneself said in words of a knife and an arm: the judge reads 用小刀划手臂 at p 0.04)
EUPHEMISM_RULES = ("health_euphemism", "health_self_harm")
#: rules that find what the judge was never fitted on (a family's faith or origin, which no
#: round before issue 9's seventh session held): what they find stands too, until a refit
#: learns it
UNJUDGED_RULES = ("family_faith_or_origin",)


_CLASS_STATISTIC = re.compile(scores.CLASS_STATISTIC)
_NOT_ASSESSMENT_RANK = re.compile(scores.NOT_ASSESSMENT_RANK, re.ASCII)
_EXAM_RANK = re.compile(scores.EXAM_RANK, re.ASCII)


_PAPER_LAYOUT = re.compile(scores.PAPER_LAYOUT)
_ANONYMOUS_COUNT = re.compile(scores.ANONYMOUS_COUNT)


def anonymous_count(text: str, plain: str) -> bool:
    """Is `text` (normalized: `plain`) a result of a number of people that names or points
    at none of them (这次素描测验有三个同学拿了满分, "Nobody in my set failed the vocab test")?"""
    return bool(_ANONYMOUS_COUNT.search(plain)) and not learned.names_person(text, scores.COUNT_WORDS)


def _score_exemption(name: str) -> Callable[[str, str], bool]:
    """A word problem's marks are nobody's (word_problem), nor are a story's (terms.fiction),
    nor are those of a count of pupils that names none of them (anonymous_count); a class's own statistic is nobody's score, nor is
    a paper's layout (各科满分：语文120); a ranking in a question or a lesson that names
    nobody (年级前十名的名单要公布吗？请给出建议) is nobody's place."""
    def nobodys(text: str, plain: str) -> bool:
        return word_problem(text, plain) or anonymous_count(text, plain) or terms.fiction(text, plain)

    if name in scores.LAYOUT_RULES:
        return lambda text, plain: nobodys(text, plain) or bool(_PAPER_LAYOUT.search(plain))
    if name not in scores.RANK_RULES:
        return nobodys
    # a place in a ranking is one person's (前五名的同学 is a list of them)
    return lambda text, plain: word_problem(text, plain) or bool(
        _CLASS_STATISTIC.search(plain) or (_NOT_ASSESSMENT_RANK.search(plain) and not _EXAM_RANK.search(plain))) \
        or terms.lesson_request(text, plain)


_ID_EXAMPLE = "11010519491231002X"

RULES: tuple[Rule, ...] = (
    Rule("id_number", "id_number", _number_rule("id_number"),
         (f"身份证{_ID_EXAMPLE}", "老身份证号 110105491231002", "11 01 05 19 49 12 31 00 2X",
          "壹壹零壹零伍壹玖肆玖壹贰叁壹零零贰X", f"把刘佳怡的身份证号{_ID_EXAMPLE}当示例出一道练习题",
          # another country's number, after the word that names it
          "Mum's SSN for the financial aid form: 532-48-1190", "NI number QQ 12 34 56 C, for payroll",
          "Emily's passport number is EA4820917", "Ryan's HKID is Y123456(7)", "黄梓萱的港澳通行证号C06978443",
          "SSN: five tree too, for ate, won won nine oh"),
         ("订单号 110105194912", "2024-09-01 至 2024-09-30",
          f"身份证号最后一位校验码怎么算？用虚构号码{_ID_EXAMPLE}出一道练习题",
          "passport photos due 12 March 2025, room 204", "student number 2024001234",
          "Quiz: which is the valid format for a Social Security number, 123-45-6789 or 12-345-6789?")),
    Rule("phone", "phone", _number_rule("phone"),
         ("家长电话13812345678", "+86 158-1234-5678", "138-12-34-56-78", "一三八一二三四五六七八",
          "one three eight one two three four five six seven eight", "王老师家里座机 010-62345678",
          "Nora's mum: zero seven nine one one two three four five six seven", "mobile 07911 123456",
          "学校办公室：王老师手机13812345678", "Mrs Chan's HK mobile is 9268 0041", "佢阿媽電話係 9876 5432",
          "Amara's HK mobile for the exchange week: 6844 8396",
          "(604) 555-0122 is the number for Harper's guardian", "(6O4) SSS-OlBB is her dad's",
          "landline oh won too won, for five tree, seven tree ate ate",
          "plus four four, seventy-seven hundred, nine hundred, five six one",
          "Róisín's dad, ignore the x's: 0x7x8x6x6x0x3x1x4x7x2"),
         ("题号 1-3-5-7-9-11-13-15", "2023.10.15 13:45 上课", "第138页", "student number 2024001234",
          "家长会时间 202410151930", "学校教务处公开电话 0571-86502317", "The school office number is 020 7946 0321",
          "phone on 2024 1015 about the trip", "Mobile phones away: 0830 to 1530", "4111 1111, for the sheet",
          "We won 3 to 1, and for 2 weeks we were top of the league")),
    Rule("bank_card", "bank_card", _number_rule("bank_card"),
         ("card number 4111111111111111", "银行卡 6222 0212 3456 7890 128",
          "Tom's sample card number 4111 1111 1111 1111, for the worksheet",
          "Hana's stipend goes to IBAN DE44 5001 0517 5407 3249 31", "name,sort,acct; R. Kaur,40-05-16,77320918",
          "sort code 20-45-77, account 43918206", "switch the direct debit to S4ZS ZTGB 4ZGB 4GSB"),
         ("订单号 4111111111111112", "1111111111111111", "IBAN DE89 3704 0044 0532 0130 01 (one digit off)",
          "Explain an IBAN with the registry's example GB82 WEST 1234 5698 7654 32",
          "our school account balance is 12,345.67", "the account for the 2025 budget: 12000 pounds",
          "Write a Luhn algorithm exercise using the made-up card number 4111 1111 1111 1111")),
    *(Rule(name, "score", _regex_rule(pattern, unless=_score_exemption(name)), tuple(pos), tuple(neg))
      for name, (pattern, pos, neg) in {**scores.SCORE_RULES_ZH, **scores.SCORE_RULES_EN}.items()),
    *(Rule(name, kind, _regex_rule(pattern, unless=terms.lesson_request, original=name in EUPHEMISM_RULES),
           tuple(pos), tuple(neg))
      for kind, table in (("health", situations.HEALTH_RULES), ("family", situations.FAMILY_RULES))
      for name, (pattern, pos, neg) in table.items()),
    Rule("health_terms", "health", lambda text, plain: "health" in _terms_in(text, plain)
         and not terms.lesson_request(text, plain),
         ("学生小李有抑郁症", "她 有 癫 痫", "張同學有自閉症", "He has A.D.H.D.", "a pupil with AIDS"),
         ("用凹透镜矫正近视的光学原理", "uses visual aids", "二叉树的遍历", "讲讲糖尿病人为什么要控制血糖",
          "Explain angles of depression in trigonometry", "Discuss the novel's treatment of mental illness",
          "Unit 7 covers allergies and the immune system (biology)")),
    Rule("health_pinyin_and_typos", "health", lambda text, plain: "health" in _fuzzy_terms_in(plain)
         and not terms.lesson_request(text, plain),
         ("他有yiyuzheng", "小王有糖niao病", "has tangniaobing", "suffers from depresion", "王同学有哮踹"),
         ("划小船去春游", "结合课本讲解", "双向链表", "近似计算", "a change of plan", "meditation before class",
          "秋季研学旅行", 'seed_school(slug="yizhong", name="第一中学")', "What's the weather like in spring?",
          "Tom's mum is a nurse at the local hospital")),
    # a diagnosis by its ICD code: 诊断书上写着 F84.0, "diagnosis code F90.0", ICD-10 G40
    Rule("health_diagnosis_code", "health", _regex_rule(
        r"(?:诊断|确诊|病历|病案|diagnos\w*|icd)[^\n。]{0,24}?(?<![a-z0-9])[a-z]\d{2}\.\d{1,2}(?![\d.])|"
        r"\bicd[\s\-]?1[01]\s*(?:code\s*)?[:：]?\s*[a-z]\d{2}\b"),
         ("梁诗涵的诊断书上写着 F84.0", "Sam's diagnosis code is F90.0", "ICD-10: G40 on his care plan"),
         ("诊断性测验第3题 12.5 分", "diagnostic test, question B12", "the ICD is a classification of diseases")),
    Rule("family_terms", "family", lambda text, plain: "family" in _terms_in(text, plain)
         and not terms.lesson_request(text, plain),
         ("小王父母离异", "班上有三个留守兒童", "He lives in foster care"),
         ("Likes to foster critical thinking", "设计一节关于单亲家庭题材小说的阅读课",
          "The response lists evicted facts")),
    Rule("family_bereavement", "family", _regex_rule(
        r"(?:父亲|母亲|爸爸|妈妈|父母|爸|妈|爷爷|奶奶|外公|外婆)[^，,。.；;!?！？]{0,4}(?:去世|过世|离世|病逝|病故|走了)|"
        r"(?:\b(?:his|her|their)|'s)\s+(?:\w+\s+)?(?:father|mother|dad|mum|mom|parents?)\s+"
        r"(?!tongue|land|country|board)(?:\w+\s+){0,2}"
        r"(?:died|passed\s+away)", unless=terms.lesson_request),
         ("孙悦的妈妈去年去世了", "小明的爷爷上个月过世", "her mother died last spring", "Oliver's mum passed away"),
         ("鲁迅在1936年去世", "his mother tongue died out", "语文阅读题：文中母亲去世对主人公的影响")),
    Rule("family_parents_away", "family", _regex_rule(
        r"(?:父母|爸妈|爸爸妈妈|父亲|母亲|爸爸|妈妈)[^，,。.；;]{0,4}(?:常年|长期|一直|都)?\s*"
        r"(?:在外(?:地|省)?\s*(?:打工|务工|工作)|在[\u4e00-\u9fff]{1,4}(?:打工|务工))"),
         ("高思齐父母常年在外打工", "他爸妈都在外地务工", "沈悦父母在广东打工"),
         ("讲讲外出务工人员的贡献",)),
    Rule("score_pinyin", "score", lambda text, plain: "score" in _fuzzy_terms_in(plain)
         and not terms.lesson_request(text, plain),
         ("郑浩体育测试 b-u-j-i-g-e", "王磊数学bujige了", "他这学期guake两门", "张三物理 ling fen"),
         ("不及格的题型归类", "挂科率统计表", "linguistics fences", "a guava cake", "lingering fog")),
    Rule("family_pinyin_and_typos", "family", lambda text, plain: "family" in _fuzzy_terms_in(plain)
         and not terms.lesson_request(text, plain),
         ("她是danqin家庭", "他爸妈lihun了"),
         ("单元练习", "下学期我改教高一（1）班", "第 12 名和第 13 名之间的分差",
          "One of the lights in Room 4 flickers; reported to maintenance")),
)


#: texts up to this long have their verdict cached (a fact or a summary is checked again at
#: every injection); longer ones are checked each time
_CACHED_TEXT_CHARS = 4_000


def check(text: str) -> Verdict:
    """Every kind of sensitive data in `text` (an empty Verdict when it is clean)."""
    if not text:
        return Verdict()
    if len(text) <= _CACHED_TEXT_CHARS:
        return _check_cached(text)
    return _check(text)


@functools.lru_cache(maxsize=4096)
def _check_cached(text: str) -> Verdict:
    return _check(text)


@functools.lru_cache(maxsize=256)
def _normalized_cached(text: str) -> str:
    return normalize(text)


def _plain(text: str) -> str:
    """normalize(text), remembered for the last few short texts: check() and
    written_in_disguise() read the same text one after the other in screen()."""
    return _normalized_cached(text) if len(text) <= _CACHED_TEXT_CHARS else normalize(text)


_TABLE_RULE_LINE = re.compile(r"[\s|:\-+=]*-[\s|:\-+=]*")  # |---|:--:|


# A column or key that holds people: 姓名, student, pupil_name, first name; not a thing's
# name (task name, unit_name, school name: "name" after another word that is not a person's)
_PERSON_COLUMN = re.compile(r"姓名|名字|学生|同学|家长|教师|老师|(?<![a-z])(?:student|stu|pupil|learner|child|kid|parent|teacher)s?"
                            r"(?![a-z])|(?<![a-z])(?<![a-z][ _])(?:(?:first|last|full|given|family|sur)[ _]?)?names?"
                            r"(?![a-z])")


#: a comma-separated row holds names, marks and short labels; longer parts are prose
_CSV_CELL_CHARS = 24


def _table_cells(line: str, separator: str | None, csv: bool) -> tuple[list[str] | None, str | None]:
    """A table line's cells and separator (the table's own first: a tab-separated cell may
    hold a '|'), or (None, None) for a line that is no table's."""
    for kind in (separator, "|", "\t", ","):
        if kind == "|" and line.count("|") >= 2:
            return line.strip().strip("|").split("|"), kind
        if kind == "\t" and "\t" in line:
            return line.split("\t"), kind
        if kind == "," and csv and "," in line:
            return line.split(","), kind
    return None, None


_HTML_ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr\s*>", re.IGNORECASE | re.DOTALL)
_HTML_CELL = re.compile(r"<t[hd]\b[^>]*>(.*?)</t[hd]\s*>", re.IGNORECASE | re.DOTALL)
_HTML_TAG = re.compile(r"<[^<>]{0,200}>")


def _html_table(text: str) -> str:
    """An HTML table's rows as a pipe table's lines ('|Student|English|' over '|Sana|61|'),
    or '' when `text` holds none."""
    if "<tr" not in text and "<TR" not in text:
        return ""
    rows = (_HTML_CELL.findall(row) for row in _HTML_ROW.findall(text))
    return "\n".join("|" + "|".join(html.unescape(_HTML_TAG.sub("", cell)).strip().replace("|", "/") for cell in cells) + "|"
                     for cells in rows if cells)


def table_view(text: str) -> str:
    """A markdown, tab- or comma-separated table of people in `text` (a column of names,
    students or pupils), row by row as "header:cell" pairs ('| 学生 | 英语 |' over '| 卢梓涵 | 48 |'
    -> '学生:卢梓涵, 英语:48'), each cell normalize()d: a mark in a table is said by its
    column's name, which the rules read beside it. The lines and cells are split before
    normalizing (which joins Chinese across a tab or a line break: 学生\t英语). '' when there
    is none."""
    text = unicodedata.normalize("NFKC", _html_table(text) or text)  # full-width ｜ and ，as well
    csv = "," in text and "\n" in text
    if "|" not in text and "\t" not in text and not csv:
        return ""
    out, header, separator = [], None, None
    for line in text.splitlines():
        if "|" in line and _TABLE_RULE_LINE.fullmatch(line):
            continue
        cells, kind = _table_cells(line, separator if header is not None else None, csv)
        if kind == "," and any(len(cell) > _CSV_CELL_CHARS for cell in cells):
            if separator == "," and header is not None:
                continue  # a row with a long note, inside a table
            cells = kind = None  # prose with commas
        if cells is None:
            header = None
            continue
        if header is None or kind != separator:  # a new table begins (a caption, then its rows)
            names = [_column_name(cell) if cell.isascii() else normalize(cell).strip() for cell in cells]
            header, separator = (names if any(_PERSON_COLUMN.search(name) for name in names) else []), kind
        elif header and len(cells) == len(header):
            row = [normalize(cell).strip() for cell in cells]
            if all(_A_COUNT.fullmatch(cell) for name, cell in zip(header, row) if _PERSON_COLUMN.search(name)):
                continue  # a count of students, not one: "Grade,Students,%" over "9,26,16.0%"
            out.append(", ".join(f"{name}:{cell}" for name, cell in zip(header, row, strict=True)))
    return "\n".join(out)


_A_COUNT = re.compile(r"[\d.,%\s]*\d[\d.,%\s]*")


# The fields of a list of people that says where they are and what they do, and nothing
# about them: a name and a class, a room, a bed, a seat, a bus stop, a duty, a club …
_ROSTER_FIELD = re.compile(
    r"(?:(?:(?:first|last|full|given|family|sur)\s*)?name|student|pupil|child|children|kid|player|candidate|"
    r"member|class|form|tutor|group|house|year|room|dorm|dormitory|bed|seat|desk|table|locker|bus|route|stop|"
    r"pick\s*up|pickup|drop\s*off|time|day|date|week|duty|task|job|role|club|team|position|pos|jersey|shirt|number|"
    r"no|num|id|sid|event|lane|heat|lunch|sitting|lunch\s+sitting|batch|line|period|teacher|staff|coach|venue|"
    r"location|place|session|slot|shift|kit|size|colou?r|peg|tray|gate|row|partner|captain|instrument|topic|"
    r"elective|option|(?:mon|tues|wednes|thurs|fri|satur|sun)day|mon|tue|wed|thu|fri|floor|building|block|part|"
    r"chair|bib|athlete|cand|voice|section|bench)s?|"
    r"选修课|课程|节次|周[一二三四五六日]|星期[一二三四五六日]|楼栋|楼层|层|位置|位置号|声部|实验台|组员|成员|组次|道次|号码布|"
    r"姓名|名字|学生|同学|队员|选手|班级|班|年级|宿舍|寝室|楼|房间|房号|床位|床号|座位|座号|座位号|桌号|组|小组|组别|值日|"
    r"值日生|任务|日期|星期|时间|地点|路线|线路|站点|站|校车|车次|社团|活动|项目|号码|编号|学号|考号|准考证号|考场|储物柜|"
    r"柜号|批次|餐次|职务|岗位|分工|性别|老师|教室|场地|球衣号|号|组长|队长|搭档|乐器")
_FIELD_SUFFIX = re.compile(r"\s*(?:no\.?|number|num|name|#|号|名称|编号|[(（][^)）]{0,12}[)）])$")
_QUOTED_KEY = re.compile(r"[\"']([^\"'\n]{1,30})[\"']\s*:")
_LINE_KEY = re.compile(r"^\s*(?:-\s+)?([A-Za-z_\u4e00-\u9fff][\w\u4e00-\u9fff .()（）#]{0,24}?)\s*[:=：]", re.MULTILINE)
_LATIN_NAME = r"[A-Z][a-z]+(?:[ '\-][A-Z][a-z']+)?"  # Kiera, Finn Raman, Jack O'Neil
_A_NAME = re.compile(_LATIN_NAME)
_DICT_OF_NAMES = re.compile(r"([A-Za-z_]\w{0,30})\s*=\s*\{")
# a key that is a person's name, over a record of theirs: {"蒋梓萌": {"room": 91, …}}
_NAME_LIKE = re.compile(rf"{_LATIN_NAME}|[\u4e00-\u9fff]{{2,4}}")


def _paste_fields(text: str) -> list[str]:
    """The names of the fields of a paste of data in `text`: SQL columns, XML elements and
    attributes, a table's header, a record's or a literal's keys (each in words:
    _column_name); a dict keyed by people's names ("seats = {"Ethan": 14, …}") gives "name"
    and its own name."""
    fields = []
    html = _html_table(text)
    if html:
        return [_column_name(cell) if cell.isascii() else cell for cell in _table_header(html)]
    for match in _SQL_INSERT.finditer(text):
        fields += match.group(1).split(",")
    elements = re.sub(r"<\?[^>]*\?>", "", text)  # not <?xml version="1.0" …?>
    fields += [tag for tag, _value in _XML_LEAF.findall(elements)]
    fields += [key for attributes in _XML_ATTRIBUTES.findall(elements) for key, _value in _XML_ATTRIBUTE.findall(attributes)]
    if not fields:
        fields += _table_header(text)
    keys = ["name" if _NAME_LIKE.fullmatch(match.group(1)) and text[match.end():].lstrip().startswith("{")
            else match.group(1) for match in _QUOTED_KEY.finditer(text)]
    dicts = _DICT_OF_NAMES.findall(text)
    if dicts and keys and all(_A_NAME.fullmatch(key) for key in keys):
        fields += ["name", *dicts]
    elif "name" in keys and not fields:  # records keyed by their people's names: the records' fields
        fields += keys
    elif not fields:
        fields += keys + _LINE_KEY.findall(text) + dicts
    return [_column_name(field.strip(" \"'`")) if field.isascii() else field.strip(" \"'`")
            for field in fields if field.strip(" \"'`")]


def _table_header(text: str) -> list[str]:
    """The header of a table of three rows or more (tab-, pipe- or comma-separated cells, as
    many in each row), among its first four lines; [] when there is none."""
    lines = [line.strip().strip("|") for line in text.splitlines() if line.strip()]
    for line in lines[:4]:
        for separator in ("\t", "|", ","):
            cells = [cell.strip() for cell in line.split(separator)]
            if (len(cells) >= 2 and all(0 < len(cell) <= 30 and not re.search(r"[\"'{}\[\]]", cell) for cell in cells)
                    and sum(len(other.split(separator)) == len(cells) for other in lines) >= 3):
                return cells
    return []


def _roster_field(field: str) -> bool:
    """Whether a field's name is a roster's (_ROSTER_FIELD), its parts each ("part / instrument")."""
    return all(_ROSTER_FIELD.fullmatch(part) or _ROSTER_FIELD.fullmatch(_FIELD_SUFFIX.sub("", part))
               for part in re.split(r"\s*[/、&]\s*", field))


# A line of a paste of data: a table's row, a record's field, a row of SQL, an XML element,
# a line that opens or closes a literal or an item of a list.
_DATA_LINE = re.compile(r"[\t|:=：,，]|^\s*[<{(\[\"'\-]|[>})\],;]\s*$")


def _caption(text: str) -> str:
    """The first line of `text` when it is no line of data ("新生宿舍分配", "Bus list for
    Friday"), else ''."""
    first = text.strip().split("\n", 1)[0]
    return "" if _DATA_LINE.search(first) else first


def roster(text: str) -> bool:
    """Whether `text` is a list of people and where they are or what they do (a dormitory's
    beds, a bus list, a duty rota, seats, candidate numbers), or a timetable: every field it
    has is a name or such a field (_ROSTER_FIELD). The learned judge, fitted on sentences,
    takes a list of names for a list of people's secrets (p 0.99 on a dormitory list);
    screen() asks it about the list's caption only. Every line after the first is a line of
    data (a row, a field, an element)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if not all(_DATA_LINE.search(line) for line in lines[1:]):
        return False  # a line of prose among the rows ("她那个病又犯了") is for the judge
    fields = _paste_fields(text)
    return len(set(fields)) >= 2 and all(_roster_field(field) for field in fields)


# Rows of data that are no table: SQL (INSERT INTO marks (pupil, maths) VALUES ('Ada', 38),
# …), XML (<student name="Ada" gpa="2.2"/>, <row><name>Ada</name><maths>38</maths></row>),
# a dict keyed by people's names (marks = {"Kiera": 41, "Nia": 63}).
_SQL_INSERT = re.compile(r"insert\s+into\s+[\w.`\"]+\s*\(([^)]{1,300})\)\s*values", re.IGNORECASE)
# (possessive: a run of '' that never closes is read once, not in every way it could split)
_SQL_ROW = re.compile(r"\(((?:'(?:[^']|'')*+'|[^'()])*+)\)")
_SQL_VALUE = re.compile(r"'((?:[^']|'')*+)'|([^,\s][^,]*)")
_XML_ATTRIBUTES = re.compile(r"<[A-Za-z_][\w\-]*((?:\s+[A-Za-z_][\w\-]*=\"[^\"<>]*\"){2,})\s*/?>")
_XML_ATTRIBUTE = re.compile(r"([A-Za-z_][\w\-]*)=\"([^\"<>]*)\"")
_XML_LEAVES = re.compile(r"(?:<([A-Za-z_][\w\-]*)>[^<>]{0,80}</\1>\s*){2,}")
_XML_LEAF = re.compile(r"<([A-Za-z_][\w\-]*)>([^<>]{0,80})</\1>")
_NAMED_VALUES = re.compile(rf"([A-Za-z_]\w{{0,30}})\s*=\s*\{{((?:\s*[\"']{_LATIN_NAME}[\"']\s*:\s*"
                           r"[\"']?[\w.+\-]{1,8}[\"']?\s*,?)+)\s*\}")
_NAMED_VALUE = re.compile(r"[\"']([^\"']+)[\"']\s*:\s*[\"']?([\w.+\-]{1,8})")


def data_view(text: str) -> str:
    """Rows of data in `text` that are no table (SQL inserts, XML elements, a dict keyed by
    people's names), as table_view() gives a table's rows: "header:cell" pairs, one row a
    line, only where a field holds people ('' when there is none)."""
    rows: list[list[tuple[str, str]]] = []
    inserts = list(_SQL_INSERT.finditer(text))
    for insert, following in zip(inserts, [*inserts[1:], None]):
        names = [_column_name(name.strip(" `\"")) for name in insert.group(1).split(",")]
        for row in _SQL_ROW.findall(text, insert.end(), following.start() if following else len(text)):
            cells = [(quoted or bare).replace("''", "'").strip() for quoted, bare in _SQL_VALUE.findall(row)]
            if len(cells) == len(names):
                rows.append(list(zip(names, cells)))
    for attributes in _XML_ATTRIBUTES.findall(text):
        rows.append([(_column_name(key), value) for key, value in _XML_ATTRIBUTE.findall(attributes)])
    for leaves in _XML_LEAVES.finditer(text):
        rows.append([(_column_name(key), value) for key, value in _XML_LEAF.findall(leaves.group())])
    for variable, items in _NAMED_VALUES.findall(text):
        rows += [[("name", name), (_column_name(variable), value)] for name, value in _NAMED_VALUE.findall(items)]
    people = [row for row in rows if any(_PERSON_COLUMN.search(name) for name, _cell in row)]
    return "\n".join(", ".join(f"{name}:{normalize(cell).strip()}" for name, cell in row) for row in people)


_URL_QUERY = re.compile(r"[?&]([^\s=&#?]{1,64})=([^\s&#]{0,200})")
# a key of an exported record, quoted or not, and its value: "semester_grade": "D+", apScore=2
_RECORD_PAIR = re.compile(r"""["']?([A-Za-z][\w.\-]{0,40})["']?\s*[:=]\s*["']?([^"'\n,{}\[\]]{1,80})""")
_JOINED_KEY = re.compile(r"[A-Za-z][_\-.][A-Za-z]|[a-z][A-Z]")  # semester_grade, young-carer, apScore


#: column names that exports of Chinese school systems abbreviate to their pinyin initials
#: (xm 姓名, yw 语文, sx 数学, njpm 年级排名), besides the subjects and score words
_RECORD_WORDS = ("姓名", "学号", "班级", "年级", "排名", "名次", "年级排名", "班级排名", "总分", "等级", "考试")


@functools.lru_cache(maxsize=1)
def _pinyin_initials() -> dict[str, str]:
    """Initials -> word, for the subjects and score words of core/redline/scores.py and
    _RECORD_WORDS; the first word wins a clash (yy: 英语 before 音乐, both subjects)."""
    words = [word for word in scores.SUBJECTS.split("|") if re.fullmatch(r"[一-龥]{2,4}", word)]
    out = {}
    for word in [*_RECORD_WORDS, *words]:
        readings = [terms.first_reading(char) for char in word]
        if all(readings):
            out.setdefault("".join(reading[0] for reading in readings), word)
    return out


def _column_name(name: str) -> str:
    """A column's or key's name in words: 'semester_grade' -> 'semester grade', 'apScore'
    -> 'ap score', 'yw_rank' -> '语文 rank', 'xm' -> '姓名'."""
    name = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
    parts = re.sub(r"[_\-.]+", " ", name).strip().lower().split()
    initials = _pinyin_initials()
    return " ".join(initials.get(part, part) if part.isascii() else part for part in parts)


def _json_fields(text: str) -> bool:
    """Whether `text` holds a JSON object or a list of them, after a line that asks for
    something or not (its keys are a record's even when no word is joined in them:
    {"name": "何沐阳", "rank": "41/45"}; 帮我拼一下：{"name": …})."""
    if len(text) > _MAX_RECORD_CHARS:
        return False
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        return False
    try:
        value, _end = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict) or (isinstance(value, list) and any(isinstance(item, dict) for item in value))


#: longer JSON is a document: its values are read by the rules as text
_MAX_RECORD_CHARS = 20_000


def record_view(text: str) -> str:
    """The fields of an exported record of a person in `text` (a URL's query, JSON, YAML or
    key=value lines where words are joined in keys: semester_grade, young_carer, apScore) as
    "key words: value" lines, the URL's escapes decoded ('?student=Mia+Hart&young_carer=true'
    -> 'student: Mia Hart', 'young carer: true'): a record says in its keys what the rules
    look for in words. '' when there is none, or when no key names a person (name, student,
    pupil … as for a table's person column)."""
    pairs = []
    if "=" in text and ("?" in text or "&" in text):
        pairs += [(_column_name(unquote_plus(key)), unquote_plus(value)) for key, value in _URL_QUERY.findall(text)]
    if _JOINED_KEY.search(text) or _json_fields(text):
        pairs += [(_column_name(key), value.strip()) for key, value in _RECORD_PAIR.findall(text)
                  if not value.startswith("//")]  # https://…
    if not any(_PERSON_COLUMN.search(key) for key, _value in pairs):
        return ""  # a record of no one (a class's statistics, a page's settings)
    return "\n".join(f"{key}: {value}" for key, value in [*pairs, *_split_numbers(pairs)])


def _split_numbers(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A number split over fields that follow each other (tel_a=139&tel_b=0517&tel_c=2846,
    card p1..p4), joined again under the first one's key."""
    out, run = [], []
    for key, value in [*pairs, ("", "")]:
        if re.fullmatch(r"\d{1,6}", value.strip()) and (not run or _parts_of_one(run[0][0], key)):
            run.append((key, value.strip()))
            continue
        if len(run) > 1 and sum(len(v) for _k, v in run) >= 9:
            out.append((run[0][0], "".join(v for _k, v in run)))
        run = [(key, value.strip())] if re.fullmatch(r"\d{1,6}", value.strip()) else []
    return out


def _parts_of_one(first: str, key: str) -> bool:
    """Whether two keys name parts of one value: a common stem and a short mark each (f1 f2,
    tel a, tel b, sfz 1); not the columns of a table of marks (english, geo)."""
    stem = os.path.commonprefix([first, key])
    return bool(stem.strip()) and len(first) - len(stem) <= 3 and len(key) - len(stem) <= 3


def _reads_as_english(text: str, shifted: str) -> bool:
    """Whether the Latin words of `text` are English once `shifted` (by a cipher anyone can
    undo: rot13, Atbash) and are not as written: four words of three letters or more, most
    no word as written and most a word once shifted."""
    words = [word.lower() for word in re.findall(r"[A-Za-z]{3,}", text)]
    if len(words) < _MIN_CIPHER_WORDS:
        return False
    vocabulary = terms.english_words()
    unknown = sum(word not in vocabulary for word in words)
    known_back = sum(word.lower() in vocabulary for word in re.findall(r"[A-Za-z]{3,}", shifted))
    return unknown > len(words) / 2 and known_back > len(words) / 2


_MIN_CIPHER_WORDS = 4
_ATBASH = str.maketrans("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
                        "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA")
# Text turned upside down with look-alike letters (ɐ for a, ʇ for t, ㄣ for 4), to be read
# turned back and from the end.
_TURN_OVER = str.maketrans("ɐqɔpǝɟƃɥᴉɾʞlɯuodbɹsʇnʌʍxʎzƖᄅƐㄣϛ9ㄥ86", "abcdefghijklmnopqrstuvwxyz123456789")
_UPSIDE_DOWN = re.compile("[ɐɔǝɟƃɥᴉɾʞɯɹʇʌʍʎƖᄅƐㄣϛㄥ]")
_MIN_UPSIDE_DOWN = 4
#: how much more common a word must be shifted back than as written to be read shifted
_ROT13_MORE_COMMON = 10


def _rot13_words(text: str) -> str:
    """`text` with the words shifted back that are English once shifted, far more than as
    written: a sentence partly in rot13 ("Amara's HK mobile: fvk rvtug … avar" is "six
    eight … nine"; avar is a word, but a rare one)."""
    vocabulary = terms.english_words()

    def shifted(match: re.Match) -> str:
        word = match.group()
        back = codecs.decode(word, "rot13")
        seen = vocabulary.get(back.lower(), 0)
        return back if seen and seen > _ROT13_MORE_COMMON * vocabulary.get(word.lower(), 0) else word
    return re.sub(r"[A-Za-z]{2,}", shifted, text)


def _check(text: str) -> Verdict:
    plain = _plain(text)
    views = [(text, plain)]
    for table in (table_view(text), data_view(text)):
        if table:
            views.append((table, table))
    record = record_view(text)
    if record:
        views.append((record, normalize(record)))
    if READ_BACKWARDS.search(plain):  # （倒着读）名一后最班全
        views.append((text[::-1], normalize(text[::-1])))
    if ROT13.search(plain):  # (rot13) Ryyn unf nfguzn
        for shifted in (codecs.decode(text, "rot13"), _rot13_words(text)):
            views.append((shifted, normalize(shifted)))
    else:  # Ryyn Cnexf unf orra va sbfgre pner (rot13), Xsolv uzrovw (Atbash), and no word says so
        for shifted in (codecs.decode(text, "rot13"), text.translate(_ATBASH)):
            if _reads_as_english(text, shifted):
                views.append((shifted, normalize(shifted)))
    if len(_UPSIDE_DOWN.findall(text)) >= _MIN_UPSIDE_DOWN:  # ssɐlɔ uᴉ ʇsɐl: turned over, and read
        turned = text.translate(_TURN_OVER)[::-1]
        views.append((turned, normalize(turned)))
    decoded = encodings_decoded(text)  # 家长发来：5byg5LiJ5pWw5a2m5LiN5Y+K5qC8
    if decoded is not None:
        views.append((decoded, normalize(decoded)))
    signs = signs_read_as_digits(text)  # num is lbbllEZEAgB; 衣舞铃铃铃衣尔舞寺伞溜
    if signs is not None:
        views.append((signs, normalize(signs)))
    found, in_records = set(), set()
    for rule in RULES:
        if rule.kind not in found and rule.find(text, plain):
            found.add(rule.kind)
        if rule.kind not in in_records and any(rule.find(view, view_plain) for view, view_plain in views[1:]):
            in_records.add(rule.kind)
    found |= in_records
    return Verdict(tuple(kind for kind in KINDS if kind in found), tuple(kind for kind in KINDS if kind in in_records))


NUMBER_KINDS = frozenset({"id_number", "phone", "bank_card"})
#: a text this short is a value more than a sentence (小明年级前十, 陈静语文：良): what the
#: rules find in it stands, whatever the judge says
_RULES_STAND_BELOW_CHARS = 12


def screen(text: str) -> Verdict:
    """The red line for a fact (typed, edited, confirmed, proposed by extraction, injected):
    the rules and the learned judge (core/redline/learned.py) together.

    - A number the rules find (an identity number, a phone, a card) is refused, always:
      those rules check the value itself. So is what they find in a table or a record of a
      person (a column's name says what its value is), in a text written in disguise, or
      said by a euphemism they know (written_in_disguise).
    - A score, health or family verdict of the rules' words stands when the judge gives
      the sentence at least a small probability of being about a person (`low`), or one of
      its clauses a larger one (`clause_low`: 潘老师查出乳腺癌 inside a request about
      timetables): words such as 不及格 or 近视 in a question about a class or a lesson do
      not.
    - The judge alone refuses a sentence it is confident about (`high`): euphemisms and
      phrasings no word list holds (她那个病又犯了, "he's on the spectrum"), or a message
      one of whose clauses it is very confident about (`clause_high`): the sensitive part
      of a long request is one clause among ordinary ones.

    Without the judge (REDLINE_MODEL=0, or the model cannot load) this is `check()`.
    The thresholds are chosen by bench/redline_fit.py and stored with the weights.
    """
    verdict = check(text)
    judged = learned.judge(text)
    if judged is None:
        return verdict
    limits = learned.params()
    listed = judged.sensitive > limits.low and roster(text)
    if listed:  # the judge reads the list's caption only, and what the rules find stands
        caption = _caption(text)
        judged = (learned.judge(caption) if caption else None) or _NOTHING_JUDGED
    plain = _plain(text)
    # What may stop the judge alone is read only where it would refuse alone.
    alone = _confident(judged, limits)
    doubted = bool(set(verdict.kinds) - NUMBER_KINDS) and not listed and not _rules_believed(judged, limits)
    return Verdict(decide(verdict.kinds, judged, chars=len(text), limits=limits,
                          disguised=written_in_disguise(text, verdict.kinds), in_records=verdict.in_records,
                          exercise=alone and word_problem(text, plain), listed=listed,
                          nobodys=alone and _nobodys_numbers(plain),
                          lesson=alone and terms.teaching_request(text, plain),
                          story=alone and (terms.fiction(text, plain) or bool(_ROLE_ONLY.search(plain))),
                          paste=alone and not listed and _no_line_sensitive(text),
                          in_a_line=doubted and _a_line_stands(text, verdict.kinds)),
                   verdict.in_records)


#: A paste of this many lines or more (a seating plan, minutes, a rota) is read line by line too.
PASTE_LINES = 3
#: The judge alone refuses such a paste only where one of its lines, judged on its own, is more
#: likely sensitive than not.
PASTE_LINE_SENSITIVE = 0.5
#: What the rules find in a paste the judge doubts as a whole stands where it is near sure of
#: the line that holds it (a history table's 因肺结核病逝 reads at p 0.78-0.90, a pupil's medicine
#: at 0.996).
PASTE_LINE_SURE = 0.95


# A line of a list that holds names and nothing else: an optional short label or number
# (语文 ——, 第2排, 07, "Bench 3:", "High jump:"), then names (a surname and one or two
# characters, or two or three capitalised words), each with an optional role in brackets.
_CJK_NAME = rf"{terms.CJK_NAME}(?:\s*[（(][\u4e00-\u9fff]{{1,4}}[)）])?"
_EN_NAME_ONLY = r"[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+){1,2}(?:\s*\([A-Za-z ]{1,16}\))?"
_NAME_SEP = r"\s*(?:[、，,/|;；]|\s)\s*"
_NAMES_ONLY = re.compile(
    r"(?:[-*•]\s*)?(?:第?\s*\d{1,3}\s*[排组号列行名]?(?:\s*[:：.、)）]|\s)\s*)?"
    r"(?:[\u4e00-\u9fffA-Za-z0-9 ()（）×x]{1,12}?\s*(?:[:：]|——|—|--|-|–)\s*)?"
    rf"(?:{_CJK_NAME}(?:{_NAME_SEP}{_CJK_NAME})*|{_EN_NAME_ONLY}(?:\s*(?:[,/|;&]|\band\b)\s*{_EN_NAME_ONLY})*)"
    r"\s*[。.]?")


def _lines(text: str) -> list[str]:
    """The lines of a paste of PASTE_LINES lines or more, else []."""
    lines = [line for line in text.splitlines() if line.strip()]
    return lines if len(lines) >= PASTE_LINES else []


def _a_line_stands(text: str, rule_kinds: tuple[str, ...]) -> bool:
    """Whether a line of a paste in which the rules find one of `rule_kinds` is one the judge,
    reading it alone, is near sure of (PASTE_LINE_SURE: a rota whose last line is 'Reminder:
    Harvey Lloyd needs his Ritalin at 12:15': p 0.05 for the whole, 0.996 for the line)."""
    for line in _lines(text):
        if set(check(line).kinds) & set(rule_kinds):
            judged = learned.judge(line)
            if judged is not None and judged.sensitive > PASTE_LINE_SURE:
                return True
    return False


def _no_line_sensitive(text: str) -> bool:
    """Whether `text` is a paste of PASTE_LINES lines or more none of which the judge, reading
    it alone, finds likely sensitive (PASTE_LINE_SENSITIVE). The judge is fitted on sentences
    and reads a paste as a whole poorly (p 1.0 'health' for a seating plan, minutes, a sports
    day's entries), while a paste that holds a secret holds it in a line (张伟 数学 38,
    'Ella Hall … LAC - foster placement'), where the judge reads it as it was fitted to."""
    lines = _lines(text)
    if not lines:
        return False
    for line in lines:
        if _NAMES_ONLY.fullmatch(line.strip()) and check(line).ok:
            continue  # a line of names says nothing of anyone (the judge reads it as a record)
        judged = learned.judge(line)
        if judged is None or judged.sensitive > PASTE_LINE_SENSITIVE:
            return False
    return True


def _rules_believed(judged: learned.Judgement, limits: learned.Params) -> bool:
    """Does the judge give the text (`low`) or one of its clauses (`clause_low`) enough of a
    chance of being about a person for the rules' words to stand?"""
    return judged.sensitive > limits.low or judged.clause > limits.clause_low


def _confident(judged: learned.Judgement, limits: learned.Params) -> bool:
    """Is the judge sure enough to refuse without the rules (`high`, or `clause_high` for one clause)?"""
    return judged.sensitive > limits.high or judged.clause > limits.clause_high


_NOTHING_JUDGED = learned.Judgement(sensitive=0.0, kind="score")

# A note that says only which role a pupil holds (记一下：王浩然是这学期的数学课代表; "Grace is
# the maths rep"): the judge reads a name and a subject as a mark (p 0.99); nothing else is said.
_ROLE_ONLY = re.compile(
    r"^\s*(?:(?:记一下|记住|备忘|备注|note|fyi|remember)\s*[:：,，-]?\s*)?[^\n,，。.;；:：]{1,24}?\s*"
    r"(?:是|当了?|担任|做|(?:被|又)?(?:选为|选上了?|评为|推选为|当选为?)|"
    r"(?<![a-z])(?:is|was|has\s+been|will\s+be|became|is\s+now|(?:was|has\s+been|got)\s+(?:elected|voted|chosen|picked|"
    r"made|appointed)(?:\s+(?:as|to\s+be))?)(?![a-z]))\s*"
    r"(?:(?:the|our|a|an|this\s+(?:term|year)'s|这学期的?|本学期的?|我们班的?|班里的?|新的?)\s*)*"
    r"[^\n,，。.;；:：]{0,16}?"
    r"(?:课代表|班长|副班长|学习委员|团支书|体育委员|文艺委员|劳动委员|宣传委员|生活委员|纪律委员|小组长|组长|升旗手|值日生|广播员|"
    r"(?<![a-z])(?:rep|representative|captain|vice[\s-]captain|monitor|prefect|head\s+(?:boy|girl)|ambassador|"
    r"librarian|councillor|leader)(?![a-z]))\s*(?:了|啦)?\s*[。.!！]?\s*$")


def _nobodys_numbers(plain: str) -> bool:
    """Whether the numbers of normalized `plain` are nobody's: an institution's public line
    (numbers.public_line) and no number of a person's."""
    return public_line(plain) and not _numbers_in(plain)


def written_in_disguise(text: str, rule_kinds: tuple[str, ...]) -> bool:
    """Whether what the rules found in `text` is written to slip past them: the text is
    disguised (core.normalize.disguised), or a term of a kind they found is there only in
    pinyin or misspelled (他是liushouertong, 小王有哮踹), or said by a euphemism
    (EUPHEMISM_RULES: 🤰 五个月了, 是“星星的孩子”), which the judge, fitted on sentences
    as people write them, reads poorly; or what they found is what the judge was never
    fitted on (UNJUDGED_RULES: 林子涵家是回族, "Rohan's family are Sikh")."""
    if not rule_kinds:
        return False
    if disguised(text):
        return True
    plain = _plain(text)
    if any(rule.kind in rule_kinds and rule.find(text, plain) for rule in _STANDING):
        return True
    return bool(set(rule_kinds) & (_fuzzy_terms_in(plain) - _terms_in(text, plain)))


_STANDING = tuple(rule for rule in RULES if rule.name in EUPHEMISM_RULES + UNJUDGED_RULES)


def decide(rule_kinds: tuple[str, ...], judged: learned.Judgement, *, chars: int,
           limits: learned.Params, disguised: bool = False, in_records: tuple[str, ...] = (),
           exercise: bool = False, listed: bool = False, nobodys: bool = False,
           lesson: bool = False, story: bool = False, paste: bool = False,
           in_a_line: bool = False) -> tuple[str, ...]:
    """`screen()`'s decision from what the rules found in a text of `chars` characters and
    what the judge made of it (bench/redline_fit.py chooses the limits with this function).
    On a `disguised` text (`written_in_disguise`: invisible characters, other scripts'
    digits, look-alike letters, A.D.H.D …) what the rules find stands, and so does what
    they find in a table or a record of a person (`in_records`: the judge is fitted on
    sentences, and a column's name says what its value is). In a word problem (`exercise`)
    the judge alone does not find a score: its marks are made up. In a roster (`listed`:
    roster()) what the rules find stands, and `judged` is the judge's reading of its caption.
    The judge alone finds no identifying number where the only one is nobody's (`nobodys`: an
    institution's public line), no condition, family matter or number in a request for a
    lesson that names nobody (`lesson`: terms.teaching_request; its marks are the rules' to read,
    as 给张伟写评语：期中数学58分 is one), and nothing in a story or a reading passage that
    names nobody (`story`: terms.fiction) or in a note of a pupil's role alone (王浩然是数学课代表),
    nor in a paste of many lines none of which it finds likely sensitive on its own (`paste`:
    _no_line_sensitive). In a paste, what the rules find stands where the judge is near sure of
    the line that holds it (`in_a_line`: _a_line_stands)."""
    kinds = {kind for kind in rule_kinds if kind in NUMBER_KINDS} | set(in_records)
    if (_rules_believed(judged, limits) or chars < _RULES_STAND_BELOW_CHARS
            or disguised or listed or in_a_line):
        kinds.update(rule_kinds)
    if _confident(judged, limits) and not kinds \
            and not (exercise and judged.kind == "score") and not (nobodys and judged.kind in NUMBER_KINDS) \
            and not (lesson and judged.kind != "score") and not story and not paste:
        kinds.add(judged.kind)
    return tuple(kind for kind in KINDS if kind in kinds)


def recheck(text: str) -> Verdict:
    """The red line for a fact that is already stored, before each injection (fail closed):
    `screen()`, with the judge asked only where the rules find something. A fact the rules
    pass was screened when it was stored; asking the judge again would cost each process
    one model call per fact on its first run."""
    verdict = check(text)
    if not set(verdict.kinds) - NUMBER_KINDS:
        return verdict
    return screen(text)


def rules_matching(text: str) -> tuple[str, ...]:
    """The names of the rules that match `text` (for tests and for people tuning the table)."""
    plain = normalize(text)
    return tuple(rule.name for rule in RULES if rule.find(text, plain))


def is_sensitive(text: str) -> bool:
    return bool(check(text))


_SENTENCE_END = re.compile(r"(?<=[。！？!?；;\n])|(?<=[.])\s+")


_HAN = re.compile(r"[\u3400-\u9fff]")


def redact(text: str, *, placeholder: str = "") -> tuple[str, Verdict]:
    """`text` without the sentences that the red line refuses, and what they held.

    For machine-written text that is kept as a whole (a thread's rolling summary, a recall
    summary): one sensitive sentence must not cost the rest of the summary. With a
    `placeholder`, each run of refused sentences is replaced by it in place (Chinese
    sentences joined as they were, others with a space); without, they are dropped.
    """
    verdict = check(text)
    if not verdict:
        return text, verdict
    kept: list[str] = []
    for part in _SENTENCE_END.split(text):
        if not part.strip():
            continue
        if not check(part):
            kept.append(part.strip())
        elif placeholder and (not kept or kept[-1] != placeholder):
            kept.append(placeholder)
    clean = "".join(kept) if placeholder and _HAN.search(text) else " ".join(kept)
    if check(clean):  # a number or a term split across sentences
        return placeholder, verdict
    return clean, verdict
