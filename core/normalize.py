"""The one canonical normalize(): text as a filter should see it, not as it is stored.

Every check that looks for something in untrusted text (the red line, the fence
sanitizer) matches on ``normalize(text)``; what is stored and shown is always the
teacher's original text. The steps, in order:

1. HTML entities decoded until stable (``&amp;#49;`` -> ``&#49;`` -> ``1``), bounded;
2. NFKC, then NFKD so that combining marks can be dropped (é -> e, yì -> yi), then NFC;
3. one translation pass (``_FOLD``) that drops invisible, format (Cf: zero width, bidi,
   the U+E0000 tag block), variation selector, combining (Mn/Me) and filler characters,
   writes every Unicode decimal digit (Arabic-Indic, Devanagari, …) and every circled or
   dingbat digit (❶ ① ⓫) in ASCII, and folds look-alike letters (Cyrillic, Greek,
   Armenian, Cherokee …, from the Unicode confusables table that ``confusable-homoglyphs``
   ships) and other forms of Latin letters (small capitals ᴀ ɴ ɢ, turned ɐ) to Latin;
   mathematical alphanumerics are already folded by NFKC;
4. traditional -> simplified Chinese (OpenCC ``t2s``);
5. lower case (casefold); an emoji or a marking symbol inside a word is dropped (自😢伤,
   抑*郁症, dep🙁ression); a rank's homophones are read as it (年纪弟三); Chinese written apart is joined (数 学, 抑-郁-症), pinyin tone
   numbers dropped (yi4yu4zheng4), digits between letters read as letters (d1ab3tes);
6. numbers written in words become digits: runs of two or more Chinese numerals
   including 〇, 大写 壹贰叁 and mixed forms (一三八…, 1三8一…, 九十二, 一百零五; a
   single character such as 张三's or 第三's stays a word), and English number words
   (one three eight …, ninety-two) and pinyin digits read out one by one (yao san ba …,
   seven or more), and a mark read out in pinyin (jiu shi er fen -> 92分);
7. letters spelled one by one are joined (A.D.H.D -> adhd);
8. o, l and i inside a run of digits are read as 0 and 1 (138l2345678), and one or two
   other letters dropped into a number of ten digits or more are removed; separators
   (any punctuation, symbol or space) inside a long run of digits are removed (138-12-34-56-78, "11 01 05 …",
   1.3.8…) when its groups have at most four digits and one separator is used throughout
   (or the groups are all of one digit, or all of three or more), unless the groups only
   go up, as a list of question numbers does (1-3-5-7-9-11-13-15), or the run is too
   short to be an identity, phone or card number (dates are 8 digits).

It runs on every fact and every injected section, so it is one pass per step with
cached tables (bench/normalize_speed.py measures it).
"""

import base64
import binascii
import functools
import html
import re
import unicodedata

import opencc
from confusable_homoglyphs import utils as _confusable_data

__all__ = ["disguised", "fold", "normalize", "to_simplified"]

_MAX_UNESCAPE_ROUNDS = 4

#: Lower-case letters that stand for digits inside a number (138l2345678, O7823 O469O1 once
#: lower-cased): the one table the red line reads numbers with too.
#: Every sign that stands for a digit by its look, case and all (O 0, l 1, Z 2, E 3, A 4, S 5,
#: b 6, T 7, B 8, g 9): the one table; each reading takes the signs it trusts from it.
LOOKALIKE_DIGITS = dict(zip("ODoIil|ZzEAhSsbGTLBgq", "000111122344556677899"))
LETTERS_AS_DIGITS = str.maketrans({c: LOOKALIKE_DIGITS[c] for c in "oli"})

# Scripts whose letters are folded onto Latin look-alikes (the confusables table also
# lists CJK and symbol pairs, which must not be touched: 一 is not a dash).
_FOLDED_SCRIPTS = ("CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC", "LATIN", "LISU", "OLD ITALIC",
                   "TIFINAGH", "VAI", "GEORGIAN", "MODIFIER LETTER", "SMALL CAPITAL", "LETTERLIKE")
_LATIN_LETTER_FORM = re.compile(r"LATIN (?:LETTER|SMALL LETTER|CAPITAL LETTER) (?:SMALL CAPITAL|TURNED|REVERSED|"
                                r"INVERTED|SCRIPT|DOTLESS) ([A-Z])")
# 🇩 🅓 🅳 (regional indicators, negative circled and squared letters): a letter in an
# emoji's dress. Read by the fold (as the letter) and by disguised() (as a disguise).
_EMOJI_LETTER = re.compile(r"(REGIONAL INDICATOR SYMBOL|NEGATIVE CIRCLED LATIN CAPITAL|NEGATIVE SQUARED LATIN CAPITAL)"
                           r" LETTER ([A-Z])")
_FIRST_EMOJI_LETTER = 0x1F150  # no emoji letter comes before this code point
# Characters that render as nothing or as blank and are not whitespace.
_BLANK_LETTERS = frozenset("\u115f\u1160\u17b4\u17b5\u180e\u2800\u3164\uffa0\u034f")


@functools.lru_cache(maxsize=1)
def _confusable_to_latin() -> dict[int, str]:
    table = {}
    for char, entries in _confusable_data.load("confusables.json").items():
        if len(char) != 1 or char.isascii():
            continue
        name = unicodedata.name(char, "")
        if not name.startswith(_FOLDED_SCRIPTS):
            continue
        for entry in entries:
            target = entry["c"]
            if len(target) == 1 and target.isascii() and target.isalpha():
                table[ord(char)] = target
                break
    return table


class _FoldTable(dict):
    """A str.translate table that works out (and remembers) each character's fold the
    first time it is seen: one C-level pass over the text for every later call."""

    def __missing__(self, code: int):
        self[code] = value = _fold_char(code)
        return value


def _fold_char(code: int):
    char = chr(code)
    if code < 0x80:
        return char
    if char == "\U0001f51f":  # keycap ten (the other keycaps are a digit and a combining mark)
        return "10"
    category = unicodedata.category(char)
    if category in ("Cf", "Mn", "Me", "Cs", "Co") or char in _BLANK_LETTERS:
        return None
    if category == "Cc":
        return None if char not in "\t\n\r" else char
    if char.isdecimal():
        return str(unicodedata.decimal(char))
    if category in ("No", "Nl"):  # ❶ ⓫ ① and the like (superscripts are already NFKC'd), 〡〢〣 (Suzhou)
        value = unicodedata.numeric(char, None)
        if value is not None and value == int(value) and 0 <= value <= 50:
            return str(int(value))
        return char
    if category in ("Zs", "Zl", "Zp"):
        return " "
    folded = _confusable_to_latin().get(code)
    if folded is not None:
        return folded
    # a letter in an emoji's dress, as in "体测 🇩 等" or "数学🅱+"
    letter = _emoji_letter(char)
    if letter:
        return letter.group(2).lower()
    # ᴀ ɴ ɢ ʀ (small capitals), ɐ (turned): a Latin letter in another form
    letter = _LATIN_LETTER_FORM.fullmatch(unicodedata.name(char, ""))
    return letter.group(1).lower() if letter else char


def _emoji_letter(char: str) -> re.Match | None:
    """The match of _EMOJI_LETTER on `char`'s name (group 1: the dress, 2: the letter)."""
    if ord(char) < _FIRST_EMOJI_LETTER:
        return None
    return _EMOJI_LETTER.fullmatch(unicodedata.name(char, ""))


_FOLD = _FoldTable()


@functools.lru_cache(maxsize=1)
def _t2s():
    return opencc.OpenCC("t2s")


_HAS_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]")


def to_simplified(text: str) -> str:
    """Traditional Chinese characters to simplified (OpenCC t2s); other text untouched."""
    if not text or not _HAS_HAN.search(text):
        return text
    return _t2s().convert(text)


# --- numbers in words -------------------------------------------------------------------

# 参 is what OpenCC makes of the traditional 大写 參; alone it stays the word 参 (参加).
CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "壹": 1, "幺": 1, "二": 2, "贰": 2, "两": 2, "三": 3, "叁": 3, "参": 3, "四": 4,
              "肆": 4, "五": 5, "伍": 5, "六": 6, "陆": 6, "七": 7, "柒": 7, "八": 8, "捌": 8, "九": 9, "玖": 9}
_CN_UNITS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_CN_BIG = {"万": 10_000, "亿": 100_000_000}
_CN_RUN = re.compile("[0-9" + "".join(CN_DIGITS) + "".join(_CN_UNITS) + "".join(_CN_BIG) + "]+")


def _cn_positional(run: str) -> int | None:
    """九十二 -> 92, 一百零五 -> 105, 十一 -> 11, 三万五千 -> 35000; None if it is not one number."""
    total, section, digit = 0, 0, None
    for char in run:
        if char in CN_DIGITS or char.isdigit():
            if digit is not None and digit != 0:
                return None  # two digits in a row inside a positional number: not one number
            digit = CN_DIGITS[char] if char in CN_DIGITS else int(char)
        elif char in _CN_UNITS:
            section += (1 if digit is None else digit) * _CN_UNITS[char]
            digit = None
        else:  # 万 / 亿
            section += digit or 0
            if section == 0:
                return None
            total += section * _CN_BIG[char]
            section, digit = 0, None
    return total + section + (digit or 0)


def _cn_number(match: re.Match) -> str:
    run = match.group()
    if run.isascii():
        return run
    if run == "十" and match.string.startswith("分", match.end()):
        return run  # 十分 is "very"
    if len(run) < 4 and any(c.isdigit() for c in run):
        return run  # 高一3班: a class, not a mixed-script number
    if len(run) == 1:
        return run  # 张三, 第三, 一起: one character is a word more often than a number
    if run[0] in _CN_BIG or run[0] in "百千佰仟":
        return run  # 万一, 千万, 百万: words, not numbers
    positional = any(c in _CN_UNITS or c in _CN_BIG for c in run)
    if not positional:
        # Digit by digit: 一三八…, 1三8一…, 二〇二四
        return "".join(c if c.isdigit() else str(CN_DIGITS[c]) for c in run)
    # A run may mix a digit-by-digit head with a positional number; try the whole run,
    # and fall back to the digit-by-digit prefix plus the rest.
    value = _cn_positional(run)
    if value is not None:
        return str(value)
    return run


_EN_UNITS = {"zero": 0, "oh": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
             "eight": 8, "nine": 9}
_EN_TEENS = {"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
             "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
             # the misspellings people type (and disguise with)
             "ninteen": 19, "fiveteen": 15, "eightteen": 18}
_EN_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
            "eighty": 80, "ninety": 90, "fourty": 40, "ninty": 90, "tweny": 20}
_EN_TENS_RE = re.compile(r"\b(" + "|".join(_EN_TENS) + r")(?:[\s\-]+(" + "|".join(k for k in _EN_UNITS if k != "oh")
                         + r"))?\b")
_EN_TEENS_RE = re.compile(r"\b(" + "|".join(_EN_TEENS) + r")\b")
# "nine hundred", "seventy-seven hundred" (77 hundred once the tens are read), "three hundred and 5"
_EN_HUNDRED = re.compile(r"\b(\d{1,2}|" + "|".join(k for k in _EN_UNITS if k not in ("oh", "zero"))
                         + r")\s+hundred(?:\s+and)?(?:\s+(\d{1,2}|" + "|".join(k for k in _EN_UNITS if k not in ("oh", "zero")) + r"))?\b")


def _en_hundred(match: re.Match) -> str:
    head = match.group(1)
    value = int(head) if head.isdigit() else _EN_UNITS[head]
    tail = match.group(2) or "0"
    return str(value * 100 + (int(tail) if tail.isdigit() else _EN_UNITS[tail]))
# Ordinals: twenty-ninth -> 29th, thirteenth -> 13th; first to ninth only in a ranking
# ("fourth out of 30", "third in the class"), elsewhere they are words (the first lesson,
# bubble sort came in third place)
_EN_ORDINAL_UNITS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                     "eighth": 8, "ninth": 9}
_EN_ORDINAL_TEENS = {"tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
                     "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
                     "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60,
                     "seventieth": 70, "eightieth": 80, "ninetieth": 90}
_EN_ORDINAL_RE = re.compile(
    r"\b(?:(" + "|".join(_EN_TENS) + r")[\s\-]+)?(" + "|".join(_EN_ORDINAL_UNITS) + r")\b"
    r"|\b(" + "|".join(_EN_ORDINAL_TEENS) + r")\b")
_IN_A_RANKING = re.compile(r"\s+(?:out\s+of|of\s+(?:the\s+)?\d|in\s+(?:the\s+|his\s+|her\s+|their\s+)?"
                           r"(?:class|year|form|group|set|cohort|grade))\b")


def _en_ordinal(match: re.Match) -> str:
    tens, unit, teen = match.groups()
    if teen:
        value = _EN_ORDINAL_TEENS[teen]
    else:
        if not tens and not _IN_A_RANKING.match(match.string, match.end()):
            return match.group()
        value = _EN_TENS.get(tens, 0) + _EN_ORDINAL_UNITS[unit]
    suffix = "th" if 10 <= value % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(value % 10, "th")
    return f"{value}{suffix}"

# "one three eight …": three or more digit words (or digit groups: "13 five 25") in a row are a
# number read out digit by digit
# ("oh" counts only inside such a run, and "double"/"triple" repeat the next digit).
# digits spelled as they sound, read only inside such a run ("zeero sevin nien double wun")
_EN_DIGIT_SOUNDS = {"zeero": 0, "ziro": 0, "zeroh": 0, "wun": 1, "tree": 3, "thre": 3,
                    "fower": 4, "fiv": 5, "fife": 5, "fyve": 5, "siks": 6, "sicks": 6, "sics": 6,
                    "sevin": 7, "sevn": 7, "ait": 8, "eigt": 8, "nien": 9, "nyne": 9, "niner": 9}
_EN_DIGIT_WORDS = {**_EN_UNITS, **_EN_DIGIT_SOUNDS}
_EN_DIGIT_WORD = "(?:" + "|".join(_EN_DIGIT_WORDS) + r"|double[\s\-]+\w+|triple[\s\-]+\w+|\d+)"
_EN_DIGIT_RUN = re.compile(rf"\b{_EN_DIGIT_WORD}(?:[\s,\-]+{_EN_DIGIT_WORD}){{2,}}\b")
_EN_WORD = re.compile(r"double[\s\-]+(\w+)|triple[\s\-]+(\w+)|\w+")


# Everyday words that sound like digits ("oh won too won, for five tree, seven tree ate
# ate"; "area code seven oh three; then five too ate"): read as digits only in a run that
# is a number read out as heard, seven digits or more with two such words, or one between
# two digits ("4111 1111, for the sheet" and "one too many" stay words). Groups may be
# joined by "then", and a group of digits may have letters for digits in it (9O2, 33l8).
_EN_HEARD_WORDS = {"won": 1, "too": 2, "for": 4, "fore": 4, "ate": 8}
_EN_HEARD_TOKEN = ("(?:" + "|".join([*_EN_DIGIT_WORDS, *_EN_HEARD_WORDS])
                   + r"|double[\s\-]+\w+|triple[\s\-]+\w+|(?=[oli]*\d)[0-9oli]++)")  # possessive: linear on a long run
_EN_HEARD_SEP = r"(?:[\s,\-;:]+(?:(?:and\s+)?then\s+)?)"
_EN_HEARD_RUN = re.compile(rf"\b{_EN_HEARD_TOKEN}(?:{_EN_HEARD_SEP}{_EN_HEARD_TOKEN}){{2,}}\b")
_EN_HEARD_MIN_DIGITS = 7


def _en_heard_run(match: re.Match) -> str:
    tokens = [m.group() for m in _EN_WORD.finditer(match.group()) if m.group() not in ("then", "and")]
    heard = [i for i, token in enumerate(tokens) if token in _EN_HEARD_WORDS]
    enclosed = [i for i in heard if 0 < i < len(tokens) - 1]
    if not heard or not (len(heard) >= 2 or enclosed):
        return _EN_DIGIT_RUN.sub(_en_digit_run, match.group())
    words = {**_EN_DIGIT_WORDS, **_EN_HEARD_WORDS}
    digits = []
    for word in _EN_WORD.finditer(match.group()):
        inner = word.group(1) or word.group(2)
        if inner:
            digits.append(str(words.get(inner, inner)) * (2 if word.group(1) else 3))
        elif word.group() in words:
            digits.append(str(words[word.group()]))
        elif word.group() not in ("then", "and"):
            digits.append(word.group().translate(LETTERS_AS_DIGITS))
    joined = "".join(digits)
    if not joined.isdigit() or len(joined) < _EN_HEARD_MIN_DIGITS:
        return _EN_DIGIT_RUN.sub(_en_digit_run, match.group())
    return " ".join(digits)


def _en_digit_run(match: re.Match) -> str:
    if not re.search("[a-z]", match.group()):
        return match.group()  # digits only: left to the separator step
    out = []
    for word in _EN_WORD.finditer(match.group()):
        if word.group(1) or word.group(2):
            inner = word.group(1) or word.group(2)
            digit = str(_EN_DIGIT_WORDS[inner]) if inner in _EN_DIGIT_WORDS else inner
            out.append(digit * (2 if word.group(1) else 3))
        else:
            w = word.group()
            out.append(str(_EN_DIGIT_WORDS[w]) if w in _EN_DIGIT_WORDS else w)
    return " ".join(out)


# A number read out digit by digit in pinyin (yao san ba ling …; "yao" is how 1 is said in a
# phone number): seven syllables or more in a row, which ordinary pinyin never is.
_PINYIN_DIGITS = {"ling": 0, "dong": 0, "yi": 1, "yao": 1, "er": 2, "liang": 2, "san": 3, "si": 4, "wu": 5,
                  "liu": 6, "qi": 7, "ba": 8, "jiu": 9, "guai": 7}
_PINYIN_DIGIT = "(?:" + "|".join(sorted(_PINYIN_DIGITS, key=len, reverse=True)) + ")"
_PINYIN_DIGIT_RUN = re.compile(rf"(?<![a-z0-9]){_PINYIN_DIGIT}(?:[\s,\-]*{_PINYIN_DIGIT}){{6,}}(?:[\s\-]*x)?(?![a-z0-9])")


def _pinyin_digit_run(match: re.Match) -> str:
    run = match.group()
    words = re.findall(_PINYIN_DIGIT, run)
    tail = "x" if run.endswith("x") else ""  # an identity number's check character
    return "".join(str(_PINYIN_DIGITS[word]) for word in words) + tail


# A mark read out in pinyin: jiu shi er fen, yi bai yi shi er fen -> 92分, 112分 (two numerals
# or more, one of them shi or bai, before fen)
# the digit words as numerals (dong, yao and guai are said only when reading out a code)
_PINYIN_NUMERAL_CN = {word: str(digit) for word, digit in _PINYIN_DIGITS.items() if word not in {"dong", "yao", "guai"}}
_PINYIN_NUMERAL_CN |= {"shi": "十", "bai": "百"}
_PINYIN_NUMERAL = "(?:" + "|".join(sorted(_PINYIN_NUMERAL_CN, key=len, reverse=True)) + ")"
_PINYIN_MARK = re.compile(rf"(?<![a-z0-9])((?:{_PINYIN_NUMERAL}[\s\-]*){{2,7}})fen(?![a-z])")


def _pinyin_mark(match: re.Match) -> str:
    words = re.findall(_PINYIN_NUMERAL, match.group(1))
    if not {"shi", "bai"} & set(words):
        return match.group()
    value = _cn_positional("".join(_PINYIN_NUMERAL_CN[word] for word in words))
    return match.group() if value is None else f"{value}分"


def _en_numbers(text: str) -> str:
    if not text.isascii() and not re.search("[a-z]", text):
        return text
    text = _EN_ORDINAL_RE.sub(_en_ordinal, text)
    text = _EN_TENS_RE.sub(lambda m: str(_EN_TENS[m.group(1)] + (_EN_UNITS[m.group(2)] if m.group(2) else 0)),
                           text)
    text = _EN_TEENS_RE.sub(lambda m: str(_EN_TEENS[m.group(1)]), text)
    text = _EN_HUNDRED.sub(_en_hundred, text)
    text = _EN_HEARD_RUN.sub(_en_heard_run, text)
    text = _EN_DIGIT_RUN.sub(_en_digit_run, text)
    text = _PINYIN_DIGIT_RUN.sub(_pinyin_digit_run, text)
    text = _PINYIN_MARK.sub(_pinyin_mark, text)
    return text


# --- spelled letters and separated digits -----------------------------------------------

# a.d.h.d, a-d-h-d, a d h d (three letters or more when only spaces separate them)
_SPELLED_LETTERS = re.compile(r"(?<![a-z0-9])[a-z](?:(?:[.\-_·*/]\s?|\s?[.\-_·*/])[a-z])+(?![a-z0-9])[.]?"
                              r"|(?<![a-z0-9])[a-z](?:\s[a-z]){2,}(?![a-z0-9])")

_DIGIT_SEP = r"(?:[^\w]|_)"  # any punctuation, symbol or space: 138-12-34, 138🔸1234, 138 1234
_DIGIT_CHAIN = re.compile(rf"(?<!\d)\d++(?:{_DIGIT_SEP}{{1,3}}+\d++)++")
_DIGIT_SEP_RUN = re.compile(rf"(?<=\d){_DIGIT_SEP}+(?=\d)")
_MIN_CHAIN_DIGITS = 9  # shorter than any phone, identity or card number (and than a date)
_MAX_GROUP_DIGITS = 4  # people split a number into groups of one to four digits


def _collapse_digit_chain(match: re.Match) -> str:
    chain = match.group()
    groups = re.findall(r"\d+", chain)
    if sum(map(len, groups)) < _MIN_CHAIN_DIGITS:
        return chain
    if max(map(len, groups)) > _MAX_GROUP_DIGITS:
        return chain  # a number of its own next to another one: 110105194912310021 13812345678
    values = [int(g) for g in groups]
    if max(map(len, groups)) <= 3 and all(a < b for a, b in zip(values, values[1:], strict=False)):
        return chain  # 1-3-5-7-9-11-13-15: a list of short numbers that only goes up
    separators = {sep.strip("()（） ") or " " for sep in _DIGIT_SEP_RUN.findall(chain)}
    if len(separators) == 1 or all(len(g) >= 3 for g in groups) or all(len(g) == 1 for g in groups):
        return "".join(groups)
    return chain  # 2023.10.15 13:45: a date and a time side by side


# --- Chinese written apart, pinyin tone numbers, digits for letters -----------------------

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# Chinese does not put spaces between characters: 数 学 九 十 二 分 -> 数学九十二分
_SPACE_IN_HAN = re.compile(rf"(?<=[{_HAN}])\s+(?=[{_HAN}])")
# One character at a time with a separator: 抑-郁-症, 抑.郁.症 (not 、 or ，: those are lists)
# (the separator any mark but the punctuation of a list or a sentence: 不※及※格, 抑@郁@症)
_SPELLED_HAN = re.compile(rf"[{_HAN}](?:([^\w\s、，,；;。！？!?：:…（）()《》「」『』“”‘’\"'])[{_HAN}])(?:\1[{_HAN}])+"
                          rf"(?![{_HAN}])")
# One character at a time with a filler character between: 邓啊子啊轩啊数啊学啊不啊及啊格
# (five or more in a row, as no sentence repeats a character every other place that long)
_FILLER_HAN = re.compile(rf"[{_HAN}]([{_HAN}])(?:[{_HAN}]\1){{4,}}")
# A hint that the text is to be read backwards: （倒着读）名一后最班全, "(reversed) msitua"
READ_BACKWARDS = re.compile(r"倒着(?:读|念|看)|倒过来(?:读|念|看)|反(?:着|过来)(?:读|念|看)|从后往前(?:读|念|看)|倒序|"
                            r"\breversed?\b|\bbackwards?\b|\bread\s+(?:it\s+)?(?:in\s+)?reverse\b|\bright\s+to\s+left\b")
# A run of text in an encoding anyone can undo, long enough to hold a word: percent-encoded
# or \x-escaped UTF-8 (%E5%BC%A0…, \xe5\xbc\xa0…), \u escapes, bare hex
# (e5bca0e4b889…) or hex bytes apart (e5 bc a0 e4 …, e5:bc:a0:…), base64, standard or URL-safe ("5byg5LiJ5pWw5a2m5LiN5Y+K5qC8" is 张三数学不及格)
_ENCODED_RUN = re.compile(
    r"(?P<percent>(?:%[0-9A-Fa-f]{2}){3,})|(?P<escaped>(?:\\x[0-9A-Fa-f]{2}){3,})|(?P<unicode>(?:\\u[0-9A-Fa-f]{4}){2,})|"
    r"(?P<hex>(?<![0-9A-Za-z])(?=[0-9]*[A-Fa-f])(?:[0-9A-Fa-f]{2}){6,}(?![0-9A-Za-z]))|"
    r"(?P<hexbytes>(?<![0-9A-Za-z:])(?:[0-9A-Fa-f]{2}[ :]){5,}[0-9A-Fa-f]{2}(?![0-9A-Za-z:]))|"
    r"(?P<base64>(?<![\w+/\-])(?<!==)[A-Za-z0-9+/\-_]{12,}={0,2}(?![\w+/=\-]))")  # after a key= too
_CJK_TEXT = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
# Printable ASCII written in the tag block (U+E0020-U+E007E), which no screen shows: "ASCII
# smuggling" (the number after "Zhang Yutong's number:" is there, in tags). Two or more in
# a row; one alone between digits is a separator, which the fold drops.
_TAG_OFFSET = 0xE0000
_TAG_RUN = re.compile("[\U000E0020-\U000E007E]{2,}")
# Bytes written as variation selectors (VS1-16 are 0-15, VS17-256 are 16-255), which no
# screen shows either: "🙂" followed by a hidden ID number. Four or more in a row.
_SELECTOR_RUN = re.compile("[\uFE00-\uFE0F\U000E0100-\U000E01EF]{4,}")


_WORD = re.compile(r"(?<![^\W\d_])[A-Za-z]{2,}(?![^\W\d_])")
_MIN_DECODED_DIGITS = 7


def _reads(decoded: str) -> bool:
    """Is `decoded` text a person wrote: printable ASCII, with Chinese and its punctuation
    or mostly letters (a name decoded by chance gives "ƛzYZ" or "?+aj")?"""
    if len(decoded) < 2 or not all(" " <= ch <= "~" or _CJK_TEXT.match(ch) for ch in decoded):
        return False
    if sum(ch.isdigit() for ch in decoded) >= _MIN_DECODED_DIGITS and re.fullmatch(r"[\d \-+()]+", decoded):
        return True  # a number (MTgxMzEwNzUxOTY= is 18131075196), which the number rules check
    if len(_CJK_TEXT.findall(decoded)) >= 2:
        return True
    letters = sum(ch.isalpha() or ch == " " for ch in decoded)
    if len(decoded) < 4 or not re.search(r"[aeiouy]", decoded, re.I):
        return False
    # mostly letters, or words with numbers between them ("Chloe Nguyen - Maths 34/100")
    return letters >= 0.8 * len(decoded) or (letters >= 0.6 * len(decoded) and len(_WORD.findall(decoded)) >= 3)


def _decode_run(kind: str, run: str) -> str | None:
    if kind == "unicode":
        return "".join(chr(int(run[i + 2:i + 6], 16)) for i in range(0, len(run), 6))
    if kind in ("percent", "escaped"):
        return bytes(int(run[i + 1 + (kind == "escaped"):i + 3 + (kind == "escaped")], 16)
                     for i in range(0, len(run), 3 + (kind == "escaped"))).decode("utf-8")
    if kind in ("hex", "hexbytes"):
        return bytes.fromhex(run.replace(":", " ")).decode("utf-8")
    body = run.rstrip("=")
    if len(body) % 4 == 1 or body.isdigit() or body.isalpha() and (body.islower() or body.isupper()):
        return None
    altchars = b"-_" if ("-" in body or "_" in body) else None
    return base64.b64decode(body + "=" * (-len(body) % 4), altchars=altchars, validate=True).decode("utf-8")


def encodings_decoded(text: str) -> str | None:
    """`text` with each run of an encoding (_ENCODED_RUN) that decodes to text a person
    wrote replaced by that text, and ASCII in tag characters (_TAG_RUN) as ASCII, or None
    when there is none. A word, a number or an
    identifier rarely decodes to UTF-8 that reads: it is left as it is."""
    found = False

    def decoded(match: re.Match) -> str:
        nonlocal found
        try:
            plain = _decode_run(match.lastgroup, match.group())
        except (binascii.Error, ValueError):
            return match.group()
        if plain is None or not _reads(plain):
            return match.group()
        found = True
        return plain

    replaced = _ENCODED_RUN.sub(decoded, text)
    if _TAG_RUN.search(replaced):  # ASCII hidden in tag characters, invisible on screen
        found = True
        replaced = _TAG_RUN.sub(lambda m: "".join(chr(ord(c) - _TAG_OFFSET) for c in m.group()), replaced)
    if _SELECTOR_RUN.search(replaced):  # bytes hidden in variation selectors after an emoji

        def selectors(match: re.Match) -> str:
            nonlocal found
            data = bytes(ord(c) - 0xFE00 if ord(c) <= 0xFE0F else ord(c) - 0xE0100 + 16 for c in match.group())
            try:
                plain = data.decode("utf-8")
            except UnicodeDecodeError:
                return match.group()
            if not _reads(plain):
                return match.group()
            found = True
            return plain
        replaced = _SELECTOR_RUN.sub(selectors, replaced)
    return replaced if found else None


# A hint that the Latin letters are shifted by 13 (rot13), which anyone can undo: "(rot13) Ryyn unf
# nfguzn" is "Ella has asthma"
ROT13 = re.compile(r"\brot[\s\-_]?13\b")
# yi4yu4zheng4 -> yiyuzheng
_TONE_NUMBERS = re.compile(r"(?<![a-z0-9])(?:[a-z]+[1-5]){2,}(?![a-z0-9])")
# d1ab3tes -> diabetes: a digit between two letters is a letter in disguise
_LEET = re.compile(r"(?<=[a-z])[013457](?=[a-z])")
_LEET_MAP = {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t"}

# "E m m a  g o t  a n  F": a sentence spaced out letter by letter, its words two spaces
# apart. When most of a text is spelled that way, every spaced run is read as a word (a run
# of two, "a n", included) and the wider gaps as the spaces between words.
_SPACED_RUN = re.compile(r"(?<![a-z0-9])[a-z0-9](?: [a-z0-9])+(?![a-z0-9])")
_SPACED_OUT_SHARE = 0.6


def _spaced_out(text: str) -> str:
    if "  " not in text:
        return text
    runs = _SPACED_RUN.findall(text)
    spelled = sum(len(run) - run.count(" ") for run in runs)
    if not any(len(run) >= 5 for run in runs) or spelled < _SPACED_OUT_SHARE * sum(not c.isspace() for c in text):
        return text
    return re.sub(r"\s{2,}", " ", _SPACED_RUN.sub(lambda m: m.group().replace(" ", ""), text))


# A pictograph or a marking symbol dropped inside a word: 自😢伤, 抑*郁症, dep🙁ression,
# adh#d. Emoji and other symbols (Unicode So, Sk) and * ~ ^ # (and _ between Chinese
# characters), at most four in a row, between two letters of one script.
_SYMBOL_IN_HAN = re.compile(rf"(?<=[{_HAN}])[^\w\s]{{1,4}}(?=[{_HAN}])|(?<=[{_HAN}])_{{1,4}}(?=[{_HAN}])")
_SYMBOL_IN_LATIN = re.compile(r"(?<=[a-z])[^\w\s]{1,4}(?=[a-z])")
_MARKING_SYMBOLS = frozenset("*~^#_")


def _dropped_symbols(match: re.Match) -> str:
    run = match.group()
    if all(c in _MARKING_SYMBOLS or unicodedata.category(c) in ("So", "Sk") for c in run):
        return ""
    return run


# A rank typed with homophones: 年纪弟三, 班纪第5, 排名递二 -> 年级第三, 班级第5, 排名第二
_RANK_GROUP_HOMOPHONE = re.compile(r"(?<=[年班])纪(?=\s*(?:[弟递第前后]|倒数|排))")
_RANK_ORDINAL_HOMOPHONE = re.compile(r"(?<=年级|班级|全班|全校|排名|倒数|考了|得了)\s*[弟递](?=[一二三四五六七八九十两\d])")


def _apart(text: str) -> str:
    text = _SYMBOL_IN_HAN.sub(_dropped_symbols, text)
    text = _RANK_ORDINAL_HOMOPHONE.sub("第", _RANK_GROUP_HOMOPHONE.sub("级", text))
    text = _SPACE_IN_HAN.sub("", text)
    text = _FILLER_HAN.sub(lambda m: m.group()[::2], text)
    return _SPELLED_HAN.sub(lambda m: m.group()[::2], text)


def _latin_disguises(text: str) -> str:
    text = _TONE_NUMBERS.sub(lambda m: re.sub(r"\d", "", m.group()), text)
    return _LEET.sub(lambda m: _LEET_MAP[m.group()], text)


# --- the pipeline -----------------------------------------------------------------------

# Letters that stand in for digits inside a run of digits: 138l2345678, 1380O12345.
_LOOKALIKE_DIGITS = re.compile(r"(?<![a-z0-9])[0-9oli]{7,}+(?![a-z])"
                               # or in groups, as a phone is written: O7823 O469O1
                               r"|(?<![a-z0-9])[0-9oli]{3,6}(?:[ \-][0-9oli]{3,6}){1,3}(?![a-z0-9])")


# One or two letters dropped into a long number: 13a812345678
# (possessive quantifiers and a lookbehind on the run's start keep these linear on a
# 100,000-digit run)
_STRAY_LETTERS = re.compile(r"(?<![a-z0-9])\d++(?:[a-z]\d++){1,2}+(?![a-z0-9])")
_MIN_STRAY_DIGITS = 10


def _stray_letters(match: re.Match) -> str:
    run = match.group()
    digits = re.sub(r"[a-z]", "", run)
    return digits if len(digits) >= _MIN_STRAY_DIGITS else run


def _lookalike_digits(match: re.Match) -> str:
    run = match.group()
    if " " in run or "-" in run:  # in groups: each group mostly digits, and ten digits in all
        groups = re.split(r"[ \-]", run)
        if sum(map(len, groups)) >= 10 and all(sum(c.isdigit() for c in g) >= max(2, len(g) - 2) for g in groups):
            return run.translate(LETTERS_AS_DIGITS)
        return run
    # up to two letters in a short run, up to about half of a long one (l7964l8OlO6)
    letters_allowed = max(2, len(run) // 2)
    return run.translate(LETTERS_AS_DIGITS) if sum(c.isdigit() for c in run) >= len(run) - letters_allowed else run


def _unescape(text: str) -> str:
    for _ in range(_MAX_UNESCAPE_ROUNDS):
        if "&" not in text:
            break
        decoded = html.unescape(text)
        if decoded == text:
            break
        text = decoded
    return text


def fold(text: str) -> str:
    """Steps 1 to 4 only: what normalize() does before lower case and numbers. For the rare
    match where case carries the meaning (AIDS the disease, not visual aids)."""
    if not text:
        return ""
    text = _unescape(text)
    text = unicodedata.normalize("NFKC", text)
    if not text.isascii():
        text = unicodedata.normalize("NFC", unicodedata.normalize("NFKD", text).translate(_FOLD))
        text = to_simplified(text).translate(_APOSTROPHES)
    return text


# A typed apostrophe in any of its forms (Majesty’s, Tom‘s, ʼs) is the apostrophe the rules read.
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2032": "'"})


# Capital letters that stand for digits in a number written in groups, as a phone or a card
# is: (6O4) SSS-OlBB, 4S59 SlOO 3B27 l644 (O 0, I and l 1, Z 2, S 5, G 6, T 7, B 8); two real
# digits at least, and nine characters in all (capitals alone are an abbreviation).
_CAPITAL_DIGIT_CHARS = "0-9OISBZGTl"
_CAPITAL_DIGITS = re.compile(rf"(?<![A-Za-z0-9])[({{]?[{_CAPITAL_DIGIT_CHARS}]{{2,6}}[)}}]?"
                             rf"(?:[ \-.][ ]?[({{]?[{_CAPITAL_DIGIT_CHARS}]{{2,6}}[)}}]?){{1,5}}(?![A-Za-z0-9])")
_CAPITAL_AS_DIGIT = str.maketrans({c: LOOKALIKE_DIGITS[c] for c in "OISBZGTl"})
_MIN_CAPITAL_RUN = 9


def _capital_digits(match: re.Match) -> str:
    run = match.group()
    chars = [c for c in run if c.isalnum()]
    if len(chars) < _MIN_CAPITAL_RUN or sum(c.isdigit() for c in chars) < 2 or all(c.isdigit() for c in chars):
        return run
    return run.translate(_CAPITAL_AS_DIGIT)


# Digits in Braille (⠼, the number sign, then the cells of a to j) and in Morse code (seven
# digits or more: ----- / ....- / --... …, each five dots and dashes).
_BRAILLE_DIGITS = str.maketrans("⠁⠃⠉⠙⠑⠋⠛⠓⠊⠚", "1234567890")
_BRAILLE_NUMBER = re.compile("⠼[⠁⠃⠉⠙⠑⠋⠛⠓⠊⠚⠼]+")
_MORSE_DIGITS = {"-----": "0", ".----": "1", "..---": "2", "...--": "3", "....-": "4", ".....": "5", "-....": "6",
                 "--...": "7", "---..": "8", "----.": "9"}
_MORSE_RUN = re.compile(r"(?<![.\-])[.\-]{5}(?:[ \t]*/?[ \t]*[.\-]{5}){6,}(?![.\-])")


def _morse(match: re.Match) -> str:
    codes = re.findall(r"[.\-]{5}", match.group())
    return "".join(_MORSE_DIGITS[code] for code in codes) if all(code in _MORSE_DIGITS for code in codes) \
        else match.group()


# Digits in other languages' words, read as a number when seven or more come in a row, three
# of them words no English sentence has ("eins-sieben-drei-zwei", "cinque uno otto sette"):
# German, French, Spanish, Italian, Portuguese (accents are folded away before this).
_FOREIGN_DIGIT_WORDS = {
    **dict.fromkeys(["null", "cero"], 0), **dict.fromkeys(["eins", "uno", "um"], 1),
    **dict.fromkeys(["zwei", "deux", "dos", "due", "dois"], 2), **dict.fromkeys(["drei", "trois", "tres", "tre"], 3),
    **dict.fromkeys(["vier", "quatre", "cuatro", "quattro", "quatro"], 4),
    **dict.fromkeys(["funf", "fuenf", "cinq", "cinco", "cinque"], 5), **dict.fromkeys(["sechs", "seis", "sei"], 6),
    **dict.fromkeys(["sieben", "sept", "siete", "sette", "sete"], 7), **dict.fromkeys(["acht", "huit", "ocho", "otto", "oito"], 8),
    **dict.fromkeys(["neun", "neuf", "nueve", "nove"], 9)}
_ANY_DIGIT_WORD = "|".join(sorted({*_FOREIGN_DIGIT_WORDS, *_EN_UNITS, "un"}, key=len, reverse=True))
_FOREIGN_DIGIT_RUN = re.compile(rf"\b(?:{_ANY_DIGIT_WORD}|\d)(?:[\s,\-/]+(?:{_ANY_DIGIT_WORD}|\d)){{6,}}\b")
_MIN_FOREIGN_WORDS = 3


def _foreign_digits(match: re.Match) -> str:
    words = re.findall(r"\w+", match.group())
    if sum(word in _FOREIGN_DIGIT_WORDS and word not in _EN_UNITS for word in words) < _MIN_FOREIGN_WORDS:
        return match.group()
    table = {**_EN_UNITS, **_FOREIGN_DIGIT_WORDS, "un": 1}
    return "".join(word if word.isdigit() else str(table[word]) for word in words)


# Japanese digits in kana, seven or more set apart (いち・さん・ろく・よん …).
_KANA_DIGITS = {"ぜろ": 0, "れい": 0, "ゼロ": 0, "レイ": 0, "いち": 1, "イチ": 1, "に": 2, "ニ": 2, "さん": 3, "サン": 3,
                "よん": 4, "ヨン": 4, "し": 4, "シ": 4, "ご": 5, "ゴ": 5, "ろく": 6, "ロク": 6, "なな": 7, "ナナ": 7,
                "しち": 7, "シチ": 7, "はち": 8, "ハチ": 8, "きゅう": 9, "キュウ": 9, "く": 9, "ク": 9}
# (the fold drops the voicing marks: ぜろ is せろ and ご is こ by then)
_KANA_DIGITS.update({unicodedata.normalize("NFC", "".join(c for c in unicodedata.normalize("NFD", word)
                                                          if not unicodedata.combining(c))): digit
                     for word, digit in list(_KANA_DIGITS.items())})
_KANA_WORD = "(?:" + "|".join(sorted(_KANA_DIGITS, key=len, reverse=True)) + ")"
_KANA_DIGIT_RUN = re.compile(rf"{_KANA_WORD}(?:[・、,，\s]+{_KANA_WORD}){{6,}}(?![\u3040-\u30ff])")


def _kana_digits(match: re.Match) -> str:
    return "".join(str(_KANA_DIGITS[word]) for word in re.split(r"[・、,，\s]+", match.group()))


# Chinese in zhuyin (bopomofo), as Taiwan's schools write its sounds: ㄕㄨˋ ㄒㄩㄝˊ is shu xue,
# read as pinyin (which the red line reads); syllables apart, or closed by a tone mark.
_ZHUYIN_TONES = "\u02ca\u02c7\u02cb\u02d9"
_ZHUYIN_SYLLABLE = re.compile("[\u3105-\u312f]{1,4}[\u02ca\u02c7\u02cb\u02d9]?")
_ZHUYIN_RUN = re.compile("[\u3105-\u312f][\u3105-\u312f\u02ca\u02c7\u02cb\u02d9 ]*")


@functools.lru_cache(maxsize=1)
def _zhuyin_to_pinyin() -> dict[str, str]:
    from pypinyin import Style
    from pypinyin.pinyin_dict import pinyin_dict
    from pypinyin.style import convert

    syllables = {convert(reading, Style.NORMAL, strict=True) for readings in pinyin_dict.values()
                 for reading in readings.split(",")}
    table = {}
    for syllable in sorted(syllables):
        zhuyin = convert(syllable, Style.BOPOMOFO, strict=True).strip(_ZHUYIN_TONES)
        table.setdefault(zhuyin, syllable)
    return table


def _zhuyin(match: re.Match) -> str:
    table = _zhuyin_to_pinyin()
    out = []
    for syllable in _ZHUYIN_SYLLABLE.findall(match.group()):
        pinyin = table.get(syllable.strip(_ZHUYIN_TONES))
        if pinyin is None:
            return match.group()
        out.append(pinyin)
    return " ".join(out) + (" " if match.group().endswith(" ") else "")


# A number written as a sum of quoted parts ("6" + "218" + "7" + "409"): the parts joined.
_QUOTED_PARTS = re.compile(r"([\"'])(\d+)\1(?:\s*\+\s*([\"'])\d+\3)+")

# Letters in Morse code, four or more (.- -.. .... -.. is ADHD), words apart by " / " or
# three spaces: read as the letters.
_MORSE_LETTERS = {".-": "a", "-...": "b", "-.-.": "c", "-..": "d", ".": "e", "..-.": "f", "--.": "g", "....": "h",
                  "..": "i", ".---": "j", "-.-": "k", ".-..": "l", "--": "m", "-.": "n", "---": "o", ".--.": "p",
                  "--.-": "q", ".-.": "r", "...": "s", "-": "t", "..-": "u", "...-": "v", ".--": "w", "-..-": "x",
                  "-.--": "y", "--..": "z", **_MORSE_DIGITS}
_MORSE_TEXT = re.compile(r"(?<![.\-\w])[.\-]{1,5}(?:(?: {1,3}| ?/ ?)[.\-]{1,5}){3,}(?![.\-\w])")


def _morse_text(match: re.Match) -> str:
    run = match.group()
    if "-" not in run or "." not in run:
        return run
    words = re.split(r" ?/ ?| {3}", run)
    letters = [[_MORSE_LETTERS.get(code) for code in word.split()] for word in words]
    if any(None in word for word in letters):
        return run
    return " ".join("".join(word) for word in letters)


# A letter between every two digits, the same one or not ("ignore the x's: 0x7x8x6x6x0x3x…",
# "drop the letters: 3j4g0j1m0s4p2m…"): eight digits or more, strictly one letter apart.
_LETTERS_BETWEEN_DIGITS = re.compile(r"(?<![a-z0-9])\d(?:[a-z]\d){7,}(?![a-z0-9])")


def normalize(text: str) -> str:
    """`text` folded for matching (see the module docstring). Never store the result."""
    if not text:
        return ""
    text = _CAPITAL_DIGITS.sub(_capital_digits, fold(text)).casefold()
    text = _LETTERS_BETWEEN_DIGITS.sub(lambda m: re.sub(r"[a-z]", "", m.group()), text)
    if "-----" in text or "....." in text or "...." in text:
        text = _MORSE_RUN.sub(_morse, text)
    if ".-" in text or "-." in text:
        text = _MORSE_TEXT.sub(_morse_text, text)
    if "+" in text:
        text = _QUOTED_PARTS.sub(lambda m: "".join(re.findall(r"\d+", m.group())), text)
    text = _FOREIGN_DIGIT_RUN.sub(_foreign_digits, text)
    if not text.isascii():
        text = _KANA_DIGIT_RUN.sub(_kana_digits, text)
        if re.search("[\u3105-\u312f]", text):
            text = _ZHUYIN_RUN.sub(_zhuyin, text)
        text = _BRAILLE_NUMBER.sub(lambda m: m.group().replace("⠼", "").translate(_BRAILLE_DIGITS), text)
        text = _apart(text)
        text = _CN_RUN.sub(_cn_number, text)
    text = _SYMBOL_IN_LATIN.sub(_dropped_symbols, text)
    text = _latin_disguises(text)
    text = _spaced_out(text)
    text = _en_numbers(text)
    text = _SPELLED_LETTERS.sub(lambda m: re.sub(r"[^a-z]", "", m.group()), text)
    text = _LOOKALIKE_DIGITS.sub(_lookalike_digits, text)
    text = _DIGIT_CHAIN.sub(_collapse_digit_chain, text)
    text = _STRAY_LETTERS.sub(_stray_letters, text)
    return text


# --- is the text disguised? -------------------------------------------------------------
# Nobody types an invisible character between two digits, a Devanagari digit, a Cyrillic
# letter inside an English word or "A.D.H.D" by accident. The red line lets its rules
# stand on such a text whatever its learned judge says (the judge was fitted on ordinary
# sentences and reads a disguise badly).

_ENTITY = re.compile(r"&(?:#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,30});", re.IGNORECASE)
_LATIN_WORD = re.compile(r"[^\W\d_]{2,}")
# yi4yu4zheng4 (not H1N1: each syllable has two letters or more)
_PINYIN_TONES = re.compile(r"(?<![a-z0-9])(?:[a-z]{2,6}[1-5]){2,}(?![a-z0-9])")
_FULLWIDTH_DIGITS = frozenset(chr(c) for c in range(0xFF10, 0xFF1A))
_LEET_WORD = re.compile(r"(?<![a-z0-9])(?=[a-z0-9]*[a-z][013457][a-z])(?=(?:[a-z0-9]*[a-z]){3})[a-z0-9]{5,}(?![a-z0-9])")


def _hiding_char(char: str) -> bool:
    """A character the fold drops (invisible, format, tag, combining, filler, control) or
    reads as an ASCII digit (another script's digits, circled ones), full-width digits aside."""
    if char.isascii() or char in _FULLWIDTH_DIGITS:
        return False
    folded = _FOLD[ord(char)]
    return folded is None or folded.isdigit()


def _mixed_script(word: str) -> bool:
    """A word of Latin letters with a look-alike from another script inside (Cyrillic а in
    "grаde"), or of look-alikes alone once folded (math bold is NFKC'd before this)."""
    if word.isascii() or not any(c.isascii() for c in word):
        return False
    table = _confusable_to_latin()
    return any(ord(c) in table for c in word if not c.isascii())


def _lone_emoji_letter(text: str) -> bool:
    """A letter dressed as an emoji (🅓, 🅱, a regional indicator outside a flag's pair: 🇩 等)."""
    def regional(char):
        letter = _emoji_letter(char)
        return bool(letter) and letter.group(1).startswith("REGIONAL")

    if max(text) < chr(_FIRST_EMOJI_LETTER):
        return False
    for i, char in enumerate(text):
        letter = _emoji_letter(char)
        if not letter:
            continue
        if not letter.group(1).startswith("REGIONAL"):
            return True
        if not ((i and regional(text[i - 1])) or (i + 1 < len(text) and regional(text[i + 1]))):
            return True
    return False


def disguised(text: str) -> bool:
    """Whether `text` looks written to slip past a filter: invisible, format, tag or
    combining characters, digits of another script or circled ones, a look-alike letter in a
    Latin word, a letter dressed as an emoji, HTML entities, letters spelled one by one
    (A.D.H.D, "E m m a"), leetspeak (d3pr3ss10n), pinyin with tone numbers or a rank in
    homophones (年纪弟三), a filler character between every two (邓啊子啊轩啊数啊学), a hint to
    read it backwards or in rot13, a run of hex, base64 or escapes that decodes to text. Ordinary text,
    traditional characters and full-width digits included, is not."""
    if not text:
        return False
    if not text.isascii():
        composed = unicodedata.normalize("NFC", text)
        if any(_hiding_char(c) for c in composed):
            return True
        if any(_mixed_script(word) for word in _LATIN_WORD.findall(unicodedata.normalize("NFKC", composed))):
            return True
        if _lone_emoji_letter(composed):
            return True
    if "&" in text and _ENTITY.search(text):
        return True
    lower = text.casefold()
    if any(_spelled_word(m.group()) for m in _SPELLED_LETTERS.finditer(lower)):
        return True
    return bool(_LEET_WORD.search(lower) or _PINYIN_TONES.search(lower)
                or _RANK_GROUP_HOMOPHONE.search(text) or _RANK_ORDINAL_HOMOPHONE.search(text)
                or _FILLER_HAN.search(text) or READ_BACKWARDS.search(to_simplified(lower)) or ROT13.search(lower)
                or encodings_decoded(text) is not None)


def _spelled_word(run: str) -> bool:
    """Four letters or more spelled one by one, and not the options of a question in order
    (A B C D, a/b/c/d): A.D.H.D, "E m m a"."""
    letters = [c for c in run if c.isalpha()]
    return len(letters) >= 4 and not all(ord(b) - ord(a) == 1 for a, b in zip(letters, letters[1:]))
