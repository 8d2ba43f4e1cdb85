"""Numbers that identify a person: identity numbers, phone numbers, bank cards.

Everything here reads ``core.normalize.normalize()``d text, where digits in any script,
in words (一三八…, one three eight …) or split into pairs (138-12-34-56-78) are already
ASCII digits in one run. What is left to do is to find runs of digits, join the groups
people write with a space or a dash (138 1234 5678), and test each run: the GB 11643
check digit for identity numbers, the mobile and landline plans for phones, Luhn for cards.
Numbers whose shape says too little are read by what the text calls them: another
country's identity number after its name (SSN, NI number, passport, HKID, 护照), a bank
account after "account" or "sort code", eight digits after "mobile", a number given in
named parts (area code …, exchange …, line …). An IBAN checks itself (modulo 97).
"""

import re

from core.normalize import CN_DIGITS, LETTERS_AS_DIGITS, LOOKALIKE_DIGITS

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
# Area code (010, 02x, or 0 and three digits) and a local number of 7 or 8 digits, as one
# run once normalize() has dropped the dash: 010-62345678 -> 01062345678.
_LANDLINE_DIGITS = re.compile(r"(?:0086|86)?(?:010|02\d)[2-9]\d{7}|(?:0086|86)?0[3-9]\d{2}[2-9]\d{6,7}")


def is_mobile(digits: str) -> bool:
    return bool(_MOBILE.fullmatch(digits))


def is_landline(digits: str) -> bool:
    return bool(_LANDLINE_DIGITS.fullmatch(digits))


def is_bank_card(digits: str) -> bool:
    # Payment cards start with 3 to 6 (ISO/IEC 7812: travel and banking; UnionPay is 62):
    # an ISBN (978…) or an order number starting with 1, 2, 7, 8 or 9 is not a card.
    return digits.isdigit() and 13 <= len(digits) <= 19 and digits[0] in "3456" and len(set(digits)) > 1 \
        and luhn_ok(digits)


def number_kind(candidate: str) -> str | None:
    """What one run of digits is, if it identifies somebody."""
    if "X" in candidate.upper()[:-1]:
        return None
    if is_id_number(candidate):
        return "id_number"
    if candidate.isdigit():
        if is_mobile(candidate) or is_landline(candidate):
            return "phone"
        if is_bank_card(candidate):
            return "bank_card"
    return None


# A group of digits (an identity number may end in X); groups joined by a space or a
# dash form one number as people write them: 138 1234 5678, 6222-0212-3456-7890.
_DIGIT_GROUP = re.compile(r"\d+(?:x(?![a-z]))?")
_GROUP_GAP = re.compile(r"[ \t\-‐‑‒–—().]{1,3}")
_MAX_GROUPS = 8
# A North American number as it is written: (617) 555-0149, +1 617-555-0149, 617.555.0149
# (area code and exchange start with 2-9; without parentheses one separator throughout).
_NANP = re.compile(r"(?<![\d\-])(?:\+?1[\s.\-‐]?)?(?:\([2-9]\d{2}\)\s?[2-9]\d{2}[\s.\-‐‑–]|[2-9]\d{2}([.\-‐‑–])[2-9]\d{2}\1)"
                   r"\d{4}(?![\d\-])")
# A number with its country's code, as normalize() leaves it: +447700900561, "plus four
# four, seventy-seven hundred …" (not a sum: no number before the plus)
_INTERNATIONAL = re.compile(r"(?<![\d\s+])(?<!\d\s)(?:\+\s?|\bplus\s+)[1-9]\d{9,13}(?!\d)")
# ... and as normalize() leaves it once its separators are gone: (6175550149
_NANP_COLLAPSED = re.compile(r"(?<![\d\w])\(\s?[2-9]\d{2}[2-9]\d{6}(?!\d)")
_LANDLINE = re.compile(r"(?<![\d-])0[1-9]\d{1,2}[-)]\s?[2-9]\d{6,7}(?![\d-])|[(]0[1-9]\d{1,2}[)]\s?[2-9]\d{6,7}(?!\d)")


def _joinable(previous: str, group: str) -> bool:
    # People group these numbers in threes and fours (138 1234 5678, 6222 0212 …), after
    # an optional 86; shorter groups are lists ("1-3-5-7-9-11-13") and never joined.
    return (len(previous) >= 3 or previous in ("86", "0086")) and len(group) >= 3 and not previous.endswith("x")


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


# A number of 10 to 15 digits right after a word that says "phone" is one, in any
# country's plan ("Nora's mum: 07911234567", "mobile 07911 123456"); not a date and time
# (202410151930).
# The words that say "phone" (the short plans below need one of these), and the words
# around a contact number that a long one may follow instead ("Nora's mum: 07911234567").
_PHONE_WORDS_ZH = "电话|手机|座机|微信"
_PHONE_WORDS_EN = "phone|mobile|mob|tel|cell|landline|whatsapp|wechat"
_PHONE_CONTEXT = re.compile(
    rf"(?:{_PHONE_WORDS_ZH}|联系方式|号码|家长|妈妈|爸爸|(?<![a-z])(?:{_PHONE_WORDS_EN}|contact|call|mum|mom|dad|"
    r"parent)s?(?![a-z]))[^\n\d]{0,16}(?<!\d)(\d(?:[ \-]?\d){9,14})(?![\d])")


def _a_date(digits: str) -> bool:
    """Whether a run of digits reads as a date, or a date and time: 20241015, 202410151930,
    20241015193000 (not anybody's number)."""
    return (len(digits) in (8, 12, 14) and digits[:2] in ("19", "20")
            and _plausible_date(int(digits[:4]), int(digits[4:6]), int(digits[6:8])))


def _not_a_date(value: str) -> bool:
    return not _a_date(re.sub(r"\D", "", value))


# An institution's public line is nobody's number: "学校教务处公开电话 0571-86502317", "the
# school office number is 020 7946 0321", "心理援助热线 12355". Not a mobile (a person
# carries it), and not where a person's word stands between the line's name and the number
# ("办公室电话：王老师手机 …", "office hours, mum's phone …").
_PUBLIC_LINE = re.compile(
    r"(?:学校|学院|校办|办公室|教务处|政教处|德育处|总务处|招生办|总机|前台|服务台|热线|公开电话|咨询电话|传达室|门卫室?|"
    r"校医室|医务室|保健室|值班室|保卫处|财务处|后勤处|图书馆|食堂|宿管|咨询室|辅导室|预约电话|预约热线|报名电话|"
    r"(?<![a-z])(?:school|office|reception|switchboard|(?:hot|help|child|life|parent)line|samaritans|front\s+desk|"
    r"enquiries|main\s+line|"
    r"(?:attendance|absence|text|crisis|advice|support|enquiry|information|help|admissions)\s+line|"
    r"(?:text|sms)\s+\w+\s+to)(?![a-z]))"
    r"((?:[^\n\d(]|\([^()\n\d]{0,30}\)){0,24})(\(?\+?\d[\d \-()]{2,16}\d)(?![\d])")
_PERSONAL = re.compile(r"家长|妈妈|爸爸|家里|家庭|私人|个人|手机|老师|(?<![a-z])(?:mum|mom|dad|parent|home(?!\s+to\b)|mobile|cell|"
                       r"personal|private|mr|mrs|ms|miss|dr)(?![a-z])|'s")


def _without_public_lines(text: str) -> str:
    def blank(match: re.Match) -> str:
        digits = re.sub(r"\D", "", match.group(2))
        national = digits[2:] if digits.startswith("86") and len(digits) == 13 else digits
        if _PERSONAL.search(match.group(1)) or is_mobile(national) or number_kind(digits) in ("bank_card", "id_number"):
            return match.group()
        start = match.start(2) - match.start()
        return match.group()[:start] + "#" * len(match.group(2))
    return _PUBLIC_LINE.sub(blank, text)


def public_line(text: str) -> bool:
    """Whether normalized `text` gives an institution's public line (学校教务处电话
    0571-86502317, "Kids Helpline is 1800 55 1800"): a number nobody owns."""
    return _without_public_lines(text) != text


# A value given in parts a few characters apart ({"sfz_1":"350203201006","sfz_2":"142239"},
# /nid/530102/20091201/122X): joined, an identity number whose check digit holds, or a
# card whose Luhn sum does, of groups of four digits or more.
_PART_GAP = 16
_MAX_PARTS = 4
_PART = re.compile(r"(?<![a-z_\d])\d+(?:x(?![a-z]))?")  # not the digit of a name such as sfz_1


def _parts_joined(text: str):
    groups = list(_PART.finditer(text))
    for start in range(len(groups)):
        joined = groups[start].group()
        for end in range(start + 1, min(len(groups), start + _MAX_PARTS)):
            if joined.endswith("x") or groups[end].start() - groups[end - 1].end() > _PART_GAP:
                break
            joined += groups[end].group()
            if len(joined) > 19:
                break
            upper = joined.upper()
            if (len(upper) == 18 and upper[0] != "0" and upper[:17].isdigit()
                    and id18_check_digit(upper[:17]) == upper[17]
                    and _plausible_date(int(upper[6:10]), int(upper[10:12]), int(upper[12:14]))):
                yield "id_number"
            elif all(len(g.group()) >= 4 for g in groups[start:end + 1]) and is_bank_card(joined):
                yield "bank_card"


# An identity number of another country, after the word that names it: an SSN, a national
# insurance number, a passport, an NRIC or HKID (what these look like varies too much for a
# pattern of their own; the label says what the value is). Six digits or more, letters
# allowed; a school's own numbers (学号, student number) are not identity numbers.
_ID_LABEL = re.compile(
    r"(?:身份证|护照|证件|港澳通行证|台胞证|回乡证|居民证|(?<![a-z])(?:ssn|social\s+security|social\s+insurance|"
    r"national\s+insurance|ni\s+(?:number|no)|ni(?=\s*[:：])|nino|passport|nric|hkid|hk\s+id|id\s+card|identity\s+(?:card|number|no)|"
    r"national\s+id|tax\s+(?:id|file\s+number)|tfn|aadhaa?r|pps\s+number|ppsn)(?![a-z]))"
    r"[^\n\d]{0,32}?(?<![a-z\d])([a-z]{0,3}\d[\da-z \-/().]{4,24})")
_MIN_LABELLED_DIGITS = 6
#: numbers published as examples, nobody's: the SSA's advertising SSNs (123-45-6789 and the
#: Woolworth wallet card's 078-05-1120) and the IBAN registry's examples
PUBLISHED_EXAMPLES = frozenset({"123456789", "078051120", "219099999",
                                "GB82WEST12345698765432", "DE89370400440532013000"})


def _labelled_id(text: str) -> bool:
    for match in _ID_LABEL.finditer(text):
        value = re.split(r"\s{2,}|[ ](?=[a-z]{2})", match.group(1))[0]  # up to the next word
        # letters for digits after the first character (S O 4 l 2 7 3 6 F: S0412736F)
        digits = re.sub(r"\D", "", value[:1] + value[1:].translate(LETTERS_AS_DIGITS))
        if len(digits) >= _MIN_LABELLED_DIGITS and digits not in PUBLISHED_EXAMPLES:
            return True
    return False


# An IBAN (ISO 13616: country, two check digits, the account; the whole is 1 modulo 97).
_IBAN = re.compile(r"(?<![a-z\d])([a-z]{2}\d{2}(?:[ ]?[a-z\d]){11,30})(?![a-z\d])")


def _iban(text: str) -> bool:
    for match in _IBAN.finditer(text):
        parts = match.group(1).split(" ")
        while parts and not any(c.isdigit() for c in parts[-1]):  # a word after it ("for")
            parts.pop()
        value = "".join(parts).upper()
        if len(value) < 15:
            continue
        digits = "".join(str(int(c, 36)) for c in value[4:] + value[:4])
        if int(digits) % 97 == 1 and value not in PUBLISHED_EXAMPLES:
            return True
    return False


# A bank account after the words that name one (account 77320918, 账号 6217…, sort code
# 40-05-16 and an account of 8 digits): its digits are somebody's money.
_ACCOUNT = re.compile(
    r"(?:账号|帐号|账户|帐户|卡号|银行卡|开户行|(?<![a-z])(?:account|acct|a/c|bank|sort\s*code|sort|bsb|routing|"
    r"direct\s+debit)(?![a-z]))[^\n\d]{0,24}(?<!\d)(\d[\d \-,]{6,24}\d)(?!\d)")


def _an_account(value: str) -> bool:
    groups = re.findall(r"\d+", value)
    return max(map(len, groups)) >= 8 and not (len(groups) == 1 and _a_date(groups[0]))


# Eight or nine digits after a word that says "phone" (Hong Kong, Singapore and many other
# plans have eight): 'HK mobile 9268 0041'; not a date (20241015).
_SHORT_PHONE = re.compile(
    rf"(?:{_PHONE_WORDS_ZH}|(?<![a-z])(?:{_PHONE_WORDS_EN})(?![a-z]))[^\n\d]{{0,32}}(?<![\d.])"
    r"(\d{4}[ \-]?\d{4,5}|\d(?:[ \-]\d){7,8})(?!\d|[.:/]\d)")


def _found(pattern: re.Pattern, text: str, accept) -> bool:
    """Whether a value `pattern` captures (group 1) in `text` passes `accept`."""
    return any(accept(match.group(1)) for match in pattern.finditer(text))


# A number given in parts, each named ("area code 617, exchange 555, and his mum's line
# ends 0199"; "first four 4532, last four 0369, and the middle eight are 1187 2904"; 尾号,
# 前三位): two named parts or more, nine digits in all, are a phone, or a card where the
# text says so.
_NAMED_PART = re.compile(
    r"(?:area\s+code|exchange|prefix|line|ends?(?:\s+(?:in|with))?|starts?(?:\s+with)?|"
    r"(?:first|last|middle|next|final)(?:\s+(?:\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|twelve))?"
    r"(?:\s+digits)?|(?:the\s+)?rest|尾号|开头|结尾|前[一二三四五六七八\d]位|后[一二三四五六七八\d]位|中间(?:[一二三四五六七八\d]位)?)"
    r"\s*(?:(?:is|are|was|were|=|:|：|是|为)\s*)?(\d{3,8}(?:\s\d{3,4})?)(?!\d|[.:/]\d)")
_CARD_WORDS = re.compile(r"卡|(?<![a-z])(?:card|visa|mastercard|amex|debit|credit)(?![a-z])")


def _named_parts(text: str) -> str | None:
    parts = [re.sub(r"\D", "", match.group(1)) for match in _NAMED_PART.finditer(text)]
    total = sum(map(len, parts))
    if len(parts) < 2 or total < 9:
        return None
    if total >= 13 and _CARD_WORDS.search(text):
        return "bank_card"
    return "phone" if total <= 12 else None


def number_kinds(text: str):
    """Yield the kind of every identifying number in normalized `text` (an institution's
    public line is not one)."""
    text = _without_public_lines(text)
    if (_LANDLINE.search(text) or _NANP.search(text) or _NANP_COLLAPSED.search(text) or _INTERNATIONAL.search(text)
            or _found(_PHONE_CONTEXT, text, _not_a_date)
            or _found(_SHORT_PHONE, text, _not_a_date)):
        yield "phone"
    if _labelled_id(text):
        yield "id_number"
    parts = _named_parts(text)
    if parts:
        yield parts
    if _iban(text) or _found(_ACCOUNT, text, _an_account):
        yield "bank_card"
    for groups in _digit_chains(text):
        # Every contiguous run of groups, so that "110105194912310021 13812345678"
        # is seen as an identity number and a phone number, not one long number.
        for start in range(len(groups)):
            for end in range(start + 1, min(len(groups), start + _MAX_GROUPS) + 1):
                kind = number_kind("".join(groups[start:end]))
                if kind:
                    yield kind
    yield from _parts_joined(text)


# --- numbers written in other signs ------------------------------------------------------

def a_number(digits: str) -> bool:
    """Whether `digits` check out as an identifying number by themselves: a mobile, an
    identity number (its check digit), a card (Luhn)."""
    return is_mobile(digits) or is_id_number(digits) or is_bank_card(digits)


# Letters that look like digits, case and all (ElOllSZOOgOlOBAOZg, lbbllEZEAgB): a word of
# eight such signs or more, three letters at least, read as digits where they check out.
_LOOKALIKE_SIGNS = str.maketrans(LOOKALIKE_DIGITS)
_LOOKALIKE_WORD = re.compile(rf"(?<![A-Za-z0-9])[0-9{re.escape(''.join(LOOKALIKE_DIGITS))}]{{8,19}}(?![A-Za-z0-9])")
# Chinese characters said like digits (衣舞铃铃铃衣尔舞寺伞溜 is 15000125436): a run of eleven or
# more, read as digits where they check out.
# (with the numerals themselves, core.normalize.CN_DIGITS)
_HOMOPHONES = {"0": "铃玲灵令凌龄领洞", "1": "衣医依伊腰妖", "2": "尔儿耳而", "3": "山伞散杉珊衫",
               "4": "寺死似思丝斯司撕", "5": "舞武午吾无屋乌捂", "6": "溜流留刘柳榴",
               "7": "妻期漆齐其奇骑棋", "8": "吧巴爸扒芭疤", "9": "酒久就旧救韭"}
_HOMOPHONE_DIGITS = str.maketrans({**{char: digit for digit, chars in _HOMOPHONES.items() for char in chars},
                                   **{char: str(value) for char, value in CN_DIGITS.items()}})
_HOMOPHONE_RUN = re.compile("[" + "".join(_HOMOPHONES.values()) + "".join(CN_DIGITS) + "0-9]{11,19}")


# A phone number in letters of the keypad: (617) HOT-DOGS; not a toll-free line (1-800-FLOWERS
# is a business's)
_KEYPAD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "22233344455566677778889999")
_VANITY = re.compile(r"(?<![\w(])(?:1-)?\(?(?!8(?:00|33|44|55|66|77|88)\b)[2-9]\d{2}\)?[ \-.]?(?=[A-Z0-9\-]*[A-Z][A-Z0-9\-]*[A-Z])"
                     r"[A-Z0-9]{3}-?[A-Z0-9]{4}(?![\w\-])")


def _keypad(match: re.Match) -> str:
    head, tail = re.match(r"(.*?\d{3}\)?[ \-.]?)(.*)", match.group()).groups()
    digits = tail.replace("-", "").translate(_KEYPAD)
    return f"{head}{digits[:3]}-{digits[3:]}"


def signs_read_as_digits(text: str) -> str | None:
    """`text` with each word of look-alike letters and each run of Chinese homophones of
    digits that reads as an identifying number (a_number) written as that number; None
    when there is none."""
    found = False

    def read(match: re.Match, table) -> str:
        nonlocal found
        digits = match.group().translate(table)
        if sum(not c.isdigit() for c in match.group()) >= 3 and digits.isdigit() and a_number(digits):
            found = True
            return digits
        return match.group()

    keypad = _VANITY.sub(_keypad, text)
    if keypad != text:
        found, text = True, keypad
    text = _LOOKALIKE_WORD.sub(lambda m: read(m, _LOOKALIKE_SIGNS), text)
    text = _HOMOPHONE_RUN.sub(lambda m: read(m, _HOMOPHONE_DIGITS), text)
    return text if found else None
