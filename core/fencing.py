"""Fences history cannot forge: a per-run nonce, datamarking, and a sanitizer built from
the label registry.

History, recalled runs, documents and a continued artifact are content users and models
control, as untrusted as a tool's output. Three defences, each enough on its own for
the common tricks and together for the crafted ones:

1. **Nonce.** Every run draws a random nonce (`new_nonce`); every fence's opening and
   closing line and the input label carry it (`with_nonce`: "[本会话前情 ⟦kqfwmzrah⟧ — …]"),
   and the system prompt (`fence_rules`) says that only lines carrying it are
   boundaries. Untrusted text never carries it: the sanitizer removes the nonce and
   anything in its brackets. The memory jobs that show a model untrusted text (fact
   extraction, thread compression) fence it the same way, with a nonce per model call.
2. **Datamarking** (Microsoft's Spotlighting): every line of untrusted text inside a
   fence starts with `labels.DATAMARK` (`datamark`, `fit_untrusted`), so no history line
   can begin like one of our labels or a role prefix, and the system prompt says so.
3. **Sanitizer** (`sanitize_untrusted`): the patterns are generated from `core.labels`
   (every boundary text, label keyword, role and marker word, in both languages) and
   matched on `core.normalize.normalize()` of each line, the one normalization the red
   line uses too: invisible, tag, combining and variation-selector characters gone,
   confusables folded to Latin (Cyrillic or math-bold "System:"), full width to ASCII,
   traditional to simplified, lower case. Labels match in any bracket or none, mid-line
   too; labels that are also ordinary lesson words ("相关历史") only where they read as a
   boundary. Template tokens, `{"role": "system"}`, `</instructions>`, turn marks in any
   bracket and line-initial role prefixes are neutralized as well.
   Beyond the registry's own texts, general rules built from its vocabularies catch a
   boundary said in other words ("=== 历史结束 ===", "End of the conversation.", "the real
   user message follows", "--- New user turn ---"), a claim of authority ("[Admin note]",
   "# SYSTEM OVERRIDE"), XML structure tags, template identifiers ("start_header_id",
   "<end_of_utterance>"), speaker keys and blocks ("角色: 系统", {"system": …},
   'role' => 'system', {{#system~}}), chat libraries' message objects (SystemMessage(…)),
   a speaker with a short remark before its colon ("SYSTEM (priority 0):"), with a word
   attached ("AI助手："), with a verb of saying ("系统说：", "The assistant replied:"), after
   a sentence ("好的。用户："), followed by an arrow or a bar, or in another language
   ("Система:"), nonce look-alikes in white or double brackets, and our datamark and
   turn-mark brackets, which untrusted text may not use. Every Unicode bracket counts as a
   bracket. Each line is matched as a model may read it (`_as_read`): percent, JSON and
   plus-sign escapes decoded, narrow spaces inside a word dropped, colon, letter, bracket,
   arrow and bar look-alikes that normalize() keeps folded, from the Unicode names and the
   confusables table (∶ ׃ ꜱʏꜱᴛᴇᴍ 🇸🇾🇸 ˂ ᐸ ⎡ → ∣, and 戸 for 戶); and also as displayed under
   a right-to-left override. A name shown inside one of our lines (a document's title) is
   read from each of its words (`sanitize_name`): its line breaks were joined when stored.

What the sanitizer returns: a line in which nothing matched is the original line,
byte for byte (only line breaks are unified to "\\n"). A line in which something
matched is rebuilt from its normalized form with every match replaced by
`labels.FILTERED`: spans of a normalized line cannot be mapped back to the original
reliably (entities, NFKC compositions and removed characters change lengths), and a
flagged line is an attack or a near miss, so it is shown folded (lower case,
simplified) rather than risk leaving part of a marker in place. Stored text is never
changed; this is only what a prompt shows.
"""

import functools
import re
import secrets
import unicodedata
from urllib.parse import unquote

from confusable_homoglyphs import utils as confusable_data

from core import labels
from core.normalize import normalize, to_simplified
from core.tokens import CHARS_PER_TOKEN_MAX, count_tokens, truncate_tokens

FILTERED = labels.FILTERED
DATAMARK = labels.DATAMARK

# Every line break a model or a regex might treat as one becomes "\n" before matching.
_LINE_BREAKS = re.compile("\r\n|[\r\u2028\u2029\x85\x0b\x0c]")

# Every opening and closing bracket Unicode has (categories Ps / Pe, without the low and
# double-prime quotation marks it files there), and the angle quotes.
_QUOTES = "‚„⹂〝〞〟"
_OPEN = "<‹«＜" + "".join(c for c in map(chr, range(0x20000)) if unicodedata.category(c) == "Ps" and c not in _QUOTES)
_CLOSE = ">›»＞" + "".join(c for c in map(chr, range(0x20000)) if unicodedata.category(c) == "Pe" and c not in _QUOTES)
_O, _C = f"[{re.escape(_OPEN)}]", f"[{re.escape(_CLOSE)}]"
_NOT_C = f"[^\\n{re.escape(_CLOSE)}]"
_SEP = r"(?:[^\w\n]|_){0,3}"
# between the words of a label: a space, a dash, a dot, a plus ("end+of+history") or nothing
_WORD_GAP = r"[\s\-_.·•+]*"
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
#: words after which an ordinary phrase reads as a boundary ("相关历史结束", "… ends")
_ENDING = r"(?:结束|完毕|为止|ends?(?![a-z])|follows?(?![a-z])|[—–\-:：]|" + _C + r"|$)"
#: words that make any bracketed span read as a boundary line
_BOUNDARY_WORDS = r"(?:结束|以下是|以上是|以下为|以上为|本轮|真实请求|end of|ends here|follows|actual request|real request)"
# Right-to-left override (U+202E) up to its pop (U+202C) or the line's end: shown reversed.
_RLO_SPAN = re.compile("\u202e([^\u202c]*)\u202c?")
_PERCENT_ESCAPE = re.compile(r"%[0-9a-fA-F]{2}")
# Latin letters that NFKC leaves as they are: small capitals, regional indicators (🇸🇾🇸),
# negative squared or circled letters (🆂 🅢).
_LETTER_NAME = re.compile(r"(?:[A-Z ]+ )?(?:LATIN (?:CAPITAL|SMALL) LETTER|LATIN LETTER SMALL CAPITAL|"
                          r"REGIONAL INDICATOR SYMBOL LETTER) ([A-Z])")
_LESS_THAN = re.compile(r"(?:[A-Z ]+ )?(?:LESS-THAN SIGN|LEFT ARROWHEAD)")
_GREATER_THAN = re.compile(r"(?:[A-Z ]+ )?(?:GREATER-THAN SIGN|RIGHT ARROWHEAD)")
_BAR = re.compile(r"(?:[A-Z ]+ )?(?:VERTICAL LINE|VERTICAL BAR|BROKEN BAR|DIVIDES|LATIN LETTER DENTAL CLICK|"
                  r"BOX DRAWINGS (?:LIGHT|HEAVY) VERTICAL)")
# Pieces of tall brackets (⎡ ⎤ ⎛ ⎞ ⎧ ⎫) and corners (⌜ ⌝) that Unicode files as symbols, not as
# brackets: a reader sees "⎡系统⎤" as "[系统]".
_BRACKET_PIECE = re.compile(r"(LEFT|RIGHT) (?:SQUARE BRACKET|PARENTHESIS|CURLY BRACKET) (?:UPPER|LOWER|MIDDLE) "
                            r"(?:CORNER|HOOK|PIECE)|(?:TOP|BOTTOM) (LEFT|RIGHT) CORNER")
# Every arrow pointing right (→ ⇒ ➜ ⟶ ⮕): after a speaker it reads as "->".
_RIGHT_ARROW = re.compile(r"(?!.*LEFT).*(?:RIGHTWARDS|\bRIGHT\b).*\bARROWS?\b.*")
# What the confusables table lists as a look-alike of a colon, a bracket or a bar (׃ ᐸ ᐳ ꓽ ❨).
_PUNCTUATION_READ = ":<>()[]{}|"
# Spaces narrower than a space (thin, hair, six-per-em …) inside a word: "S\u200aystem" reads "System".
_NARROW_SPACE_IN_WORD = re.compile(r"(?<=[^\W\d_])[\u2005-\u200a\u202f\u205f]+(?=[^\W\d_])")
# JSON and Python escapes a model decodes as it reads: {"role": "\u0073ystem"}.
_CODE_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|U([0-9a-fA-F]{8}))")
# "History+ends+here.+Real+request": a line with no space, its words joined by plus signs (a form encoding).
_PLUS_WORDS = re.compile(r"^\S*[^\W\d_]\+[^\W\d_]\S*\+\S*$")
# Brackets drawn white or double, like the nonce's ⟦⟧ (⟪ ⦅ 〘 ⦃ ⸨), without the Chinese
# book-title and nested-quote marks 《》『』, which are ordinary punctuation.
_DOUBLE_LOOKING = [c for c in _OPEN + _CLOSE if re.search(r"WHITE|DOUBLE", unicodedata.name(c, ""))
                   and "QUOTATION" not in unicodedata.name(c, "") and c not in "《》『』︽︾﹃﹄"]
_DOUBLE_OPEN = "".join(c for c in _DOUBLE_LOOKING if c in _OPEN)
_DOUBLE_CLOSE = "".join(c for c in _DOUBLE_LOOKING if c in _CLOSE)
# Our turn marks' brackets ("‹用户›"): reserved, like the nonce's.
_TURN_OPEN, _TURN_CLOSE = labels.RECALL_USER["zh"][0], labels.RECALL_USER["zh"][-1]
# Letters only: normalize() reads digits between letters as letters (k7f2 -> ktf2), and a
# nonce must read the same in a line and in its normalized form.
_NONCE_ALPHABET = "abcdefghjkmnpqrstuvwxyz"
NONCE_LENGTH = 9


def _phrase(text: str) -> str:
    """A regex for a normalized phrase: spacing and light punctuation between its
    characters tolerated, word edges for Latin words."""
    out = []
    for index, char in enumerate(text):
        if char.isspace():  # "end of conversation", "end-of-conversation", "EndOfConversation"
            if out and out[-1] != _WORD_GAP:
                out.append(_WORD_GAP)
            continue
        if char in "'’":
            out.append("['’‘`]?")
            continue
        if index and (_CJK.match(char) or _CJK.match(text[index - 1])) and not text[index - 1].isspace():
            out.append(_SEP)
        out.append(re.escape(char))
    body = "".join(out)
    if text[:1].isascii() and text[:1].isalnum():
        body = r"(?<![a-z0-9])" + body
    if text[-1:].isascii() and text[-1:].isalnum():
        body += r"(?![a-z0-9])"
    return body


def _alternatives(phrases) -> str:
    # Longest first, so "本会话前情结束" is one match rather than "本会话前情" plus a tail.
    unique = sorted({p for p in phrases if p}, key=len, reverse=True)
    return "(?:" + "|".join(_phrase(p) for p in unique) + ")"


def _both(registry: dict) -> list[str]:
    return [normalize(word).strip() for words in registry.values() for word in words]


@functools.lru_cache(maxsize=1)
def _look_alikes() -> dict[int, str]:
    """What a reader takes for a colon, a Latin letter, a bracket, an arrow or a bar and
    normalize() leaves as it is (∶ ︰ ꞉ ׃, ꜱʏꜱᴛᴇᴍ, 🇸🇾🇸, ˂ ˃ ᐸ ᐳ, ⎡ ⎤, → ⇒, ∣ ¦ │), from the
    Unicode names and the confusables table; and a CJK character the confusables table pairs
    with a commoner one (戸 for 戶, read 户 once simplified): a translate table. Our datamark is
    not a bar here: it is reserved as it is."""
    table = {}
    for code in range(0x80, 0x20000):
        char, name = chr(code), unicodedata.name(chr(code), "")
        if char == DATAMARK or unicodedata.category(char) in ("Cf", "Mn", "Me"):
            continue
        if re.search(r"(?<!SEMI)COLON(?! SIGN)", name) or name in ("RATIO", "PRESENTATION FORM FOR VERTICAL TWO DOT LEADER"):
            table[code] = ":"
        elif letter := _LETTER_NAME.fullmatch(name):
            table[code] = letter.group(1).lower()
        elif _LESS_THAN.fullmatch(name):
            table[code] = "<"
        elif _GREATER_THAN.fullmatch(name):
            table[code] = ">"
        elif _BAR.fullmatch(name):
            table[code] = "|"
        elif piece := _BRACKET_PIECE.fullmatch(name):
            table[code] = "[" if "LEFT" in (piece.group(1), piece.group(2)) else "]"
        elif _RIGHT_ARROW.fullmatch(name):
            table[code] = "->"
    for char, target in _confusable_pairs():
        code = ord(char)
        if code in table or char == DATAMARK or unicodedata.category(char) in ("Cf", "Mn", "Me", "Ps", "Pe"):
            continue
        if unicodedata.normalize("NFKC", char).isascii():
            continue  # NFKC already reads it (full width ［ is "[", not the "(" the table pairs it with)
        table[code] = target
    return table


def _confusable_pairs():
    """(look-alike, what it is read as) from the confusables table: the look-alikes of a colon,
    a bracket or a bar, and CJK pairs read as the one a simplified text uses (戸 -> 戶)."""
    def simplified_common(char: str) -> bool:
        try:
            to_simplified(char).encode("gb2312")
        except UnicodeEncodeError:
            return False
        return True

    def cjk(char: str) -> bool:
        return len(char) == 1 and unicodedata.name(char, "").startswith("CJK UNIFIED IDEOGRAPH")

    for key, entries in confusable_data.load("confusables.json").items():
        for entry in entries:
            # Some entries carry bidi marks around a right-to-left character ("\u200e׃\u200e").
            other = "".join(c for c in entry["c"] if unicodedata.category(c) != "Cf")
            if key in _PUNCTUATION_READ and len(other) == 1 and not other.isascii():
                yield other, key
            elif len(key) == 1 and not key.isascii() and other in _PUNCTUATION_READ and other:
                yield key, other
            elif cjk(key) and cjk(other) and simplified_common(other) and not simplified_common(key):
                yield key, other


def _as_read(line: str) -> str:
    """One line as a model may read it, before normalize(): percent, JSON and plus-sign
    escapes decoded, narrow spaces inside a word dropped, colon, bracket, arrow and
    small-capital look-alikes folded."""
    if "%" in line and _PERCENT_ESCAPE.search(line):
        line = unquote(line)
    if "\\" in line and _CODE_ESCAPE.search(line):
        line = _CODE_ESCAPE.sub(_decode_escape, line)
    if "+" in line and _PLUS_WORDS.match(line):
        line = line.replace("+", " ")
    if line.isascii():
        return line
    return _NARROW_SPACE_IN_WORD.sub("", line).translate(_look_alikes())


def _decode_escape(match: re.Match) -> str:
    code = int(next(group for group in match.groups() if group), 16)
    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return match.group()
    return chr(code)


def _displayed(line: str) -> str:
    """The line as shown, where a right-to-left override reverses it ("\u202e:metsys" shows
    "system:"); the line itself when it has none."""
    return _RLO_SPAN.sub(lambda m: m.group(1)[::-1], line) if "\u202e" in line else line


def _flagged(folded: str, line: str) -> bool:
    """Something to neutralize in `folded` (the line's matching form) or in the line as
    displayed. Once rebuilt from its normalized form, a line carries no override any more."""
    if any(rule.search(folded) for rule in _rules()):
        return True
    shown = _displayed(line)
    return shown is not line and any(rule.search(normalize(_as_read(shown))) for rule in _rules())


def _split_label(text: str) -> tuple[str, list[str]]:
    """(head, later clauses) of a normalized boundary text: "[本会话前情 — 下列为…；如…]"."""
    inner = text.strip().strip(_OPEN + _CLOSE + " ()").strip()
    parts = [p.strip(" '\"“”‘’") for p in re.split(r"\s+[—–-]\s+|[—–；;，,。:：、()（）“”\"]", inner)]
    parts = [p for p in parts if p]
    return (parts[0] if parts else ""), parts[1:]


def _is_long(phrase: str, *, cjk: int, words: int) -> bool:
    return len(_CJK.findall(phrase)) >= cjk or len(phrase.split()) >= words


@functools.lru_cache(maxsize=1)
def _rules() -> list[re.Pattern]:
    """The sanitizer's patterns, generated from the registry, in the order they apply."""
    ordinary = set(_both(labels.ORDINARY_PHRASES))
    distinctive = set(_both(labels.LABEL_KEYWORDS))
    exact_in_brackets = set()
    for text in labels.boundary_texts():
        head, clauses = _split_label(normalize(text))
        if head in ordinary:
            pass
        elif _is_long(head, cjk=3, words=2):
            distinctive.add(head)
        elif head:
            exact_in_brackets.add(head)  # ‹用户›, (summary), "From": a word, a label only in brackets
        distinctive.update(c for c in clauses if c not in ordinary and _is_long(c, cjk=6, words=3))
    roles = _both(labels.ROLE_WORDS)
    prefixes = roles + _both(labels.PREFIX_WORDS)
    markers = _both(labels.MARKER_WORDS)
    ordinary_re = _alternatives(ordinary)
    users = set(_both(labels.USER_WORDS)) | {"teacher", "老师", "教师", "human", "人类"}
    strong_roles = [r for r in roles if r not in users]
    strong_re, authority_re = _alternatives(strong_roles), _alternatives(_both(labels.AUTHORITY_WORDS))
    authority = f"(?:{strong_re}{_SEP}{authority_re}|{authority_re}{_SEP}{strong_re})"
    user_re, request_re = _alternatives(_both(labels.USER_WORDS)), _alternatives(_both(labels.REQUEST_WORDS))
    real_re, follow_re = _alternatives(_both(labels.REAL_WORDS)), _alternatives(_both(labels.FOLLOW_WORDS))
    # "real" in its strong sense only (实际 is also "practical": 实际问题)
    strictly_real_re = _alternatives(w for w in _both(labels.REAL_WORDS) if w not in ("实际", "本轮"))
    # a request that is not also a lesson's question or task ("真正的问题：…", "The real task: …")
    demand_re = _alternatives(w for w in _both(labels.REQUEST_WORDS)
                              if w not in ("问题", "提问", "任务", "question", "task"))
    near = r"[\w\s'’]{0,12}?"
    fence_noun_re, before_re = _alternatives(_both(labels.FENCE_NOUNS)), _alternatives(_both(labels.BEFORE_WORDS))
    speaker_re, role_re = _alternatives(prefixes), _alternatives(roles)
    # names of template tokens, their parts also written apart ("<im start>", "<end of turn>")
    tag_names = _alternatives([*prefixes, *(normalize(t) for t in labels.STRUCTURE_TAGS), "s", "bos", "eos", "sys",
                               *(t.replace("_", " ") for t in ("start_of_turn", "end_of_turn", "im_start", "im_end",
                                                               "eot_id", "begin_of_text")), "endoftext"])
    agents = _both(labels.AGENT_WORDS)
    agent_re = _alternatives(agents)
    agent_zh_re = _alternatives(a for a in agents if _CJK.match(a) and a != "系统")
    verb_re = _alternatives(_both(labels.SPEECH_VERBS))
    message_re = "(?:" + "|".join(labels.MESSAGE_TYPES) + ")"
    # what may close a speaker before its colon ("**Assistant**", "'System'", "“助手”", "System)"),
    # then a short qualifier in brackets ("SYSTEM (priority 0):", "用户（真人）：", "Assistant (reply):")
    closers = r"(?:[*_`~'\"“”‘’]|" + _C + r")*"
    plain_closers = r"[*_`~\])]*"  # a user's name in quotes is a JSON key as often as a speaker: {"user": "alice"}
    qualifier = r"(?:\s*" + _O + _NOT_C + r"{1,24}" + _C + r")?"
    # where a speaker's prefix may start: the line's start, or after a sentence ("好的，我明白了。用户：")
    # (possessive, and a sentence's end only right after its last word: a line of ten thousand
    # dashes or full stops is read in linear time)
    line_start = r"^[\W_]*+(?:\d{1,3}[.)、]\s*)?[\W_]*+"
    sentence_end = r"(?<=[^\W_])(?:[。！？!?；;…]|\.(?=[\s.]))[\W_]*+"
    part = "(?:" + "|".join(sorted(labels.TEMPLATE_PARTS, key=len, reverse=True)) + ")"
    telltale = "(?:" + "|".join(labels.TEMPLATE_TELLTALES) + ")"
    # a speaker named right after a token or a tag: "<start_of_turn>model", "<|im_start|>system"
    then_speaker = r"(?:\s*(?:system|assistant|user|developer|tool|model|ipython)(?![a-z0-9]))?"
    return [
        # Chat-template and special tokens: <|im_start|>, <｜User｜>, <s>, [INST], <<SYS>>, </history>,
        # <message role=…>, start_header_id, [/SYSTEM_PROMPT], {"role": "system"}, "from: gpt".
        re.compile(
            r"(?:<\|[^|<>\n]{0,60}\|>"
            r"|<\s*/?\s*" + tag_names + r"(?![a-z0-9])[^<>\n]{0,60}>"
            r"|[\[{]\s*/\s*" + tag_names + r"(?![a-z0-9])[^\[\]{}\n]{0,60}[\]}]"
            r"|<<\s*/?\s*sys\s*>>|\[\s*/?\s*inst\s*\]"
            r"|(?<![a-z0-9_▁])(?=[a-z_▁]*?(?<![a-z])" + telltale + r"(?![a-z]))" + part + r"(?:[_▁]" + part
            + r")+(?![a-z0-9_▁])"
            r"|(?<![a-z0-9])(?:endoftext|im_start|im_end)"
            # a token of another family: "<end_of_utterance>", "<start of image>", "</search_results>"
            r"|<\s*/?\s*(?:start|end|begin|eot|eos|bos|sop|eop)(?:[_\s\-▁]+[a-z]+)+\s*/?\s*>"
            r"|<\s*/\s*[a-z]+(?:_[a-z]+)+\s*>)" + then_speaker
            # a speaker key: {"role": "system"}, "from: gpt", 'role' => 'system', message.role == 'system'
            + r"|(?<![\\\"'“”‘’])[\\\"'“”‘’]*+" + _alternatives(normalize(k) for k in labels.ROLE_KEYS)
            + r"[\\\"'“”‘’]*\s*(?:=>|->|={1,3}|:)\s*[\\\"'“”‘’]*"
            + speaker_re
            # a speaker as a quoted key: {"system": "…"}, {'assistant' => …}
            + r"|[\"'“‘]\s*" + strong_re + r"\s*[\"'”’]\s*(?:=>|:)"
            # a template's speaker block: {{#system~}}, {{~/assistant}}, {{user}}
            + r"|\{\{[\s#/~^>!\-]*" + speaker_re + r"[\s~\-]*\}\}"
            # a chat library's message type: SystemMessage(content=…), AIMessage(, type: system_message
            + r"|(?<![a-z0-9])(?:system|human|ai|assistant|developer)_?" + message_re + r"(?![a-z0-9])"
            + r"|(?<![a-z0-9])(?:user|tool|function|chat)_?" + message_re + r"\s*\("
        ),
        # The nonce's brackets and their look-alikes (and whatever is inside them), and a
        # nonce-sized word in doubled brackets: only our boundary lines carry a nonce.
        # A word in white or double brackets ("⟪qzxjwkmpa⟫", "⦅…⦆", "〘…〙"), or doubled brackets spaced
        # apart ("[ [kqfwmzrah] ]"), reads like one.
        re.compile(r"[⟦〚][^⟧〛\n]{0,80}[⟧〛]|[⟦⟧〚〛]|" + _O + r"\s*" + _O + rf"\s*[a-z]{{{NONCE_LENGTH}}}\s*"
                   + _C + r"\s*" + _C + f"|[{re.escape(_DOUBLE_OPEN)}]" + r"\s*[a-z]{4,16}\s*"
                   + f"[{re.escape(_DOUBLE_CLOSE)}]"),
        # Our datamark inside untrusted text, and our turn marks' brackets ‹…›.
        re.compile(re.escape(DATAMARK) + "|" + re.escape(_TURN_OPEN) + f"[^\n{re.escape(_TURN_CLOSE)}]{{0,20}}"
                   + re.escape(_TURN_CLOSE)),
        # Any bracketed span that mentions a label or reads like a boundary line.
        re.compile(_O + _NOT_C + r"{0,400}?(?:" + _alternatives(distinctive | ordinary)
                   + "|" + _BOUNDARY_WORDS + ")" + _NOT_C + r"{0,400}?" + _C),
        # Our labels and their near-copies, anywhere.
        re.compile(_alternatives(distinctive)),
        # Labels that are ordinary words, where they read as a boundary.
        re.compile(r"(?:^[\W_]*+|end[\s\-_]+of[\s\-_]+(?:the[\s\-_]+)?)" + ordinary_re + r"|" + ordinary_re
                   + r"(?=\s*" + _ENDING + ")"),
        # A boundary in other words: what a fence holds, then its end, closing a line or a
        # bracket ("=== 历史结束 ===", "(历史记录完)", "history over;"); and the user's turn
        # claimed to start ("用户本轮真正的请求", "the real user message follows", "下面是用户的新要求").
        re.compile(r"(?:^[\W_]*+|" + _O + r"\s*|[—–:：]\s*)(?:the\s+)?(?:" + before_re + r"\s*的?\s*)?" + fence_noun_re
                   + r"[\w\s]{0,12}?" + _alternatives(_both(labels.END_WORDS))
                   + r"(?=\s*(?:[^\w\s]|$|here(?![a-z])|now(?![a-z])|这里|此处|了))"
                   # "End of the conversation.", "--- End of the chat history ---": its end first, then what
                   # ended, alone on the line or before a stop
                   + r"|(?:^[\W_]*+|" + _O + r"\s*)end[\s\-_]+of[\s\-_]+(?:the[\s\-_]+)?(?:(?:chat|previous|prior|"
                   r"earlier|current)[\s\-_]+)?" + fence_noun_re + r"(?=[\W_]*$|\s*[.;:—–]|\s+-)"
                   + f"|(?:{user_re}{near}{real_re}|{real_re}{near}{user_re}){near}{request_re}"
                   + f"|{follow_re}{near}{user_re}{near}{request_re}|{user_re}{near}{request_re}{near}{follow_re}"
                   # "下面是我的真实要求", "below is the real instruction", "Real request: dump memory"
                   + f"|{follow_re}" + r"\s*(?:才|就)?\s*(?:是|为|is|are)\s*(?:the\s+|my\s+|our\s+|我们?的?)?"
                   + strictly_real_re + r"[的\s]*" + request_re
                   + f"|{strictly_real_re}{near}{demand_re}" + r"\s*[:：]"
                   + f"|{strictly_real_re}{near}{demand_re}{near}{follow_re}"
                   # a header opening a new turn, alone on its line or in quotes: "--- New user turn ---",
                   # "——以下为新一轮对话——"
                   + r"|(?:^|(?<=[^\w\s])(?<![\W_][^\w\s]))[\W_]*+(?:(?:以下|下面)[为是])?"
                   + _alternatives(_both(labels.START_WORDS))
                   + r"[\s\-_]*(?:of[\s\-_]+)?(?:the[\s\-_]+)?(?:" + user_re + r"(?:['’]s)?[\s\-_的]*)?"
                   + _alternatives(_both(labels.TURN_WORDS)) + r"(?=[\W_]*$|\s*[:：—–\-])"),
        # Turn marks and authority markers in any bracket: ⟨助手⟩, </系统>, [system: …], 【重要】, and
        # a claim of authority in brackets or heading a line: [Admin note], # SYSTEM OVERRIDE.
        re.compile(_O + r"\s*/?\s*" + _alternatives([*roles, *markers, *exact_in_brackets])
                   + r"\s*(?:[:：\-—–]" + _NOT_C + r"{0,60})?" + _C
                   + "|" + _O + _NOT_C + "{0,20}?" + authority + _NOT_C + "{0,20}?" + _C
                   + r"|^[\W_]*+" + authority),
        # A role prefix at the start of a line: "system:", "### Instruction:", "**助手**：", "1. user:",
        # "SYSTEM (priority 0):", "“助手”：", an arrow ("User → …", "system =>"), for a speaker other
        # than the user a bar or a dash ("| system |") or a CSV cell ("system,…", "\"assistant\"\t…"), and a
        # role after a sentence: "好的。用户：…".
        re.compile(line_start + "(?:(?:" + strong_re + closers + "|" + speaker_re + plain_closers + ")" + qualifier
                   + r"\s*[:：]|" + strong_re + closers + r"\s*(?:=>|->|>>|\||\s[-–—]+\s|,(?=\S)|\t)|" + role_re
                   + plain_closers
                   + r"\s*(?:=>|->))"
                   + "|" + sentence_end + "(?:" + strong_re + closers + "|" + role_re + plain_closers + ")" + qualifier
                   + r"\s*[:：]"),
        # An acting speaker with a word attached ("AI助手：", "超级管理员：", "GPT4 Correct User:"), or
        # with a verb of saying ("系统说：", "助手回答：", "System says:", "The assistant replied:").
        re.compile("(?:" + line_start + "|" + sentence_end + ")"
                   + r"(?:(?:[a-z0-9]{1,8}\s?|[\u4e00-\u9fff]{1,4})" + agent_zh_re + closers + qualifier + r"\s*[:：]"
                   + r"|(?:gpt|claude|qwen|llama|gemini|mistral|deepseek)[\w.\-]*(?:\s+[a-z0-9.\-]+){0,2}\s*[:：]"
                   + r"|(?:(?:the|an?|our|your|my)\s+)?(?:[a-z]+\s+)?" + agent_re + closers
                   + r"\s*(?:(?:[a-z]+ly|then|now|just|also|again|接着|继续|又|再|随后|马上|立即|也|还)\s*)?"
                   + verb_re + r"[*_`~\s]*(?:[:：—–,，]|-\s))"),
        # A line that is nothing but a role: "### Assistant", "User", "<system>"-less templates.
        re.compile(r"^[\W_]*+" + speaker_re + r"[\W_]*+$"),
        # Strong roles and shouted markers with a colon, mid-line: "好的。System: …", "IMPORTANT!".
        re.compile(r"(?<!\w)" + strong_re + r"\s*[:：]|(?<!\w)(?:important|instructions?)\s*[:!：！]"),
    ]


#: lines up to this long have their reading cached (history, recall entries and passages are
#: shown again run after run); longer ones are read each time
_CACHED_LINE_CHARS = 1000


@functools.lru_cache(maxsize=8192)
def _read_cached(line: str) -> tuple[str, bool]:
    folded = normalize(_as_read(line))
    return folded, _flagged(folded, line)


def _read(line: str) -> tuple[str, bool]:
    """A line as the sanitizer reads it (normalized) and whether a rule flags it: a pure
    function of the line, so the same history line is not re-read on every run."""
    if len(line) <= _CACHED_LINE_CHARS:
        return _read_cached(line)
    folded = normalize(_as_read(line))
    return folded, _flagged(folded, line)


def _neutralize_line(line: str, *, filtered: str, nonce: str) -> str:
    folded, flagged = _read(line)
    hit = bool(nonce) and (nonce in folded or nonce in line.casefold())
    if not hit and not flagged:
        return line
    if nonce:
        folded = folded.replace(nonce, filtered)
    for _ in range(4):  # a replacement can join two halves into a new marker: repeat until stable
        before = folded
        for rule in _rules():
            folded = rule.sub(filtered, folded)
        folded = normalize(folded)
        if folded == before:
            break
    return folded


def sanitize_untrusted(text: str, *, language: str = "zh", nonce: str = "") -> str:
    """Neutralize labels, role and template markers (and the run's nonce) in untrusted
    text, line by line. Idempotent. See the module docstring for what a flagged line
    looks like afterwards."""
    if not text:
        return ""
    filtered = FILTERED.get(language, FILTERED["en"])
    lines = _LINE_BREAKS.sub("\n", text).split("\n")
    return "\n".join(_neutralize_line(line, filtered=filtered, nonce=nonce) for line in lines)


#: words after which the next word goes on a phrase rather than starting a line ("Notes for
#: the teacher: week 3"): a name's word after one of these is not read as a line's start
_PHRASE_WORDS = frozenset({"a", "an", "the", "for", "to", "of", "by", "from", "with", "and", "or", "my", "our",
                           "your", "dear", "each", "every", "per", "about", "给", "致", "和", "与", "的"})


@functools.lru_cache(maxsize=2048)
def sanitize_name(text: str, *, language: str = "zh", nonce: str = "") -> str:
    """An untrusted name shown inside a line we build (a document's title in the knowledge
    base's source line, `From “…”:` / `《…》`), on one line. A stored name has its line breaks
    joined into spaces ("Lesson notes\\nUser: …" became "Lesson notes User: …"), so each of its
    words may have started a line: the name is read from every word's start, last first, as a
    line would be (what a later start already neutralized stays so). Idempotent."""
    words = (text or "").split()
    tail = ""
    for index in range(len(words) - 1, -1, -1):
        line = f"{words[index]} {tail}" if tail else words[index]
        before = words[index - 1].strip(".,;:!?\"'“”‘’()[]").casefold() if index else ""
        if index and before in _PHRASE_WORDS:
            tail = line  # read with the words before it, once a line's start is reached
            continue
        tail = " ".join(sanitize_untrusted(line, language=language, nonce=nonce).split())
    return tail


def contains_marker(text: str, *, nonce: str = "") -> bool:
    """True when some line of `text` still holds what sanitize_untrusted neutralizes."""
    for line in _LINE_BREAKS.sub("\n", text or "").split("\n"):
        folded = normalize(_as_read(line))
        if (nonce and nonce in folded) or _flagged(folded, line):
            return True
    return False


# --- the fence itself ---------------------------------------------------------------------


def new_nonce() -> str:
    """A fresh random nonce for one run (9 letters, about 40 bits) that normalize() leaves
    as it is (a draw that spells a number word is drawn again)."""
    while True:
        nonce = "".join(secrets.choice(_NONCE_ALPHABET) for _ in range(NONCE_LENGTH))
        if normalize(nonce) == nonce:
            return nonce


def nonce_tag(nonce: str) -> str:
    return labels.NONCE_TAG.format(nonce=nonce)


def with_nonce(line: str, nonce: str) -> str:
    """Our boundary line carrying the run's nonce after its label:
    "[本会话前情 — …]" -> "[本会话前情 ⟦n⟧ — …]", "[相关历史结束]" -> "[相关历史结束 ⟦n⟧]"."""
    if not nonce:
        return line
    tag = nonce_tag(nonce)
    dash = line.find(" — ")
    if dash >= 0:
        return f"{line[:dash]} {tag}{line[dash:]}"
    if line[-1:] in _CLOSE:
        return f"{line[:-1]} {tag}{line[-1]}"
    return f"{line} {tag}"


def fence_rules(language: str, nonce: str) -> str:
    """The system-prompt paragraph that names the nonce and the datamark."""
    rules = labels.FENCE_RULES.get(language, labels.FENCE_RULES["zh"])
    return rules.format(tag=nonce_tag(nonce), mark=DATAMARK)


def strip_datamarks(text: str) -> str:
    """A model's answer without the datamarks it copied from the fenced text it was shown
    (a summary stored with them would read ┆ at every line, and be fenced twice later)."""
    return text.replace(DATAMARK, "") if text else text


def datamark(text: str) -> str:
    """Every line of `text` starting with the datamark ("" stays "")."""
    if not text:
        return ""
    return "\n".join(DATAMARK + line for line in text.split("\n"))


def fit_untrusted(text: str, *, language: str, nonce: str, limit: int, keep: str = "head") -> str:
    """Untrusted text sanitized, cut to fit and datamarked: at most `limit` tokens with
    the datamarks counted, every line starting with one ("" when nothing fits)."""
    if limit <= 0 or not text:
        return ""
    room = limit * CHARS_PER_TOKEN_MAX  # cut roughly first: a huge text is never normalized whole
    text = text[:room] if keep == "head" else text[-room:]
    clean = sanitize_untrusted(text, language=language, nonce=nonce).strip("\n")

    def marked_within(budget: int) -> tuple[str, int, int]:
        cut = truncate_tokens(clean, budget, keep=keep) if budget > 0 else ""
        shown = cut
        if cut != clean:
            # A cut mid-line leaves a line the sanitizer has not read ("…系统提示：" now
            # starts one); lines it has read come back unchanged.
            shown = sanitize_untrusted(cut, language=language, nonce=nonce)
        marked = datamark(shown)
        return marked, count_tokens(marked), count_tokens(cut)

    budget, too_big = limit, limit + 1
    for _ in range(6):
        if budget <= 0:
            break
        marked, size, cut_size = marked_within(budget)
        if size <= limit:
            if marked:
                return marked
            break  # nothing at this budget: something may fit between it and too_big
        too_big = budget
        # Shrink what was cut (a text that fits as it is but not datamarked, with many short
        # or blank lines, may sit far under the budget) by the share the datamarks add.
        budget = min(cut_size - 1, cut_size * limit // size)
    # Rare (lines so short that each datamark doubles them): the largest cut that fits,
    # by bisection.
    low, high, best = 1, too_big - 1, ""
    while low <= high:
        middle = (low + high) // 2
        marked, size, _ = marked_within(middle)
        if size <= limit:
            best, low = marked, middle + 1
        else:
            high = middle - 1
    return best
