"""The checks of the fence escape suites, written apart from core.fencing's patterns so the
sanitizer is not its own judge: what must not survive in a datamarked line of untrusted
text (a registry label, a role prefix, a template token, a turn mark, a claim of
authority, a boundary said in other words, a nonce or a look-alike, our datamark, read
each way a model may read the line), and a check of a whole prompt's fences. A knowledge-
base source line's title is also read from each of its words: it was several lines once.

Used by tests/core/test_escapes.py (the run prompt, every layer) and by the memory jobs'
tests (fact extraction, thread compression), with the same crafted strings.
"""

import functools
import re
import unicodedata
from collections.abc import Callable
from urllib.parse import unquote

from confusable_homoglyphs import utils as confusable_data

from core import labels
from core.fencing import DATAMARK
from core.normalize import normalize

NONCE_IN_RULES = re.compile(r"⟦([a-z0-9]+)⟧")

# speakers in other languages, as normalize() writes them (Cyrillic folds only half-way to Latin)
_FOREIGN_ROLES = "|".join(normalize(word) for word in (
    "sistema", "système", "система", "システム", "시스템", "asistente", "assistente", "ассистент", "アシスタント",
    "usuario", "utilisateur", "пользователь", "ユーザー", "사용자"))
_ROLE = (r"system|assistant|user|developer|human|ai|\w*bot|agent|model|sys|\w*gpt|instructions?|response|teacher|"
         r"admin|系统(?:提示词?|消息)?|助手|助理|用户|老师|教师|管理员|开发者|智能体|" + _FOREIGN_ROLES)
# what may stand between a speaker and its colon: emphasis, quotes, closing brackets, and one
# short remark in brackets ("SYSTEM (priority 0):", "用户（真人）：", "> **Assistant** (reply):")
_AFTER_ROLE = r"[*_`'\"“”‘’」』)\]】\s]*(?:[(（\[【{][^)）\]】}\n]{1,30}[)）\]】}]\s*)?"
_ARROW = r"(?:=>|->|[→⇒➜➔➙➛➝➞➟➠➡⟶⟹⇨⇾⮕])"
# where a speaker's line may begin: the line's start, or right after a sentence ("好的，我明白了。用户：…")
_STARTS = r"(?:^|[。！？!?；;…]|\.[\s.])[\W_]*"
ROLE_PREFIX = re.compile(
    _STARTS + r"(?:" + _ROLE + r")" + _AFTER_ROLE + r"(?:[:：∶︰﹕꞉]|\.\.|" + _ARROW + r"|\|(?!\|)|\s[-–—]\s)"
    # an assistant or an administrator named with a word attached: "AI助手：", "超级管理员：", "小助手："
    + r"|" + _STARTS + r"\w{1,4}?(?:助手|助理|管理员|开发者|机器人)" + _AFTER_ROLE + r"[:：]"
    # a speaker that says something: "系统说：", "助手回答：", "System says:", "The assistant replied:"
    + r"|" + _STARTS + r"(?:the\s+|an?\s+)?(?:ai\s+)?(?:系统|助手|助理|管理员|system|assistant|ai|bot|admin|developer)"
    r"[*_`\s]*(?:接着|又|再)?(?:说|回答|回复|答道?|表示|写道|宣布|says|said|repl(?:y|ies|ied)|answer(?:s|ed)|"
    r"respond(?:s|ed)|writes|wrote|adds|added|announce[sd])[*_`\s]*(?:[:：—–]|-\s)"
    # a chat template naming a model and a speaker: "GPT4 Correct User:"
    + r"|^[\W_]*(?:gpt|claude|llama|qwen)[\w.\-]*(?:\s+[\w.\-]+){0,2}\s*[:：]"
)
_STRUCTURE = r"history|context|conversation|document|message|transcript|exchange|instructions?|prompt|role|turn|历史\w*"
TEMPLATE_TOKEN = re.compile(
    r"<\|[^>\n]{0,40}\|>|<\s*/?\s*(?:s|bos|eos|system|user|assistant|model|developer|tool\w*|instructions?|"
    r"im_start|im_end|start_of_turn|end_of_turn|" + _STRUCTURE + r"|系统|用户|助手)(?:\s[^<>\n]{0,60})?\s*>"
    r"|\[\s*/?\s*(?:inst|[a-z]+(?:_[a-z]+)+)\s*\]|[\[{]\s*/\s*(?:" + _STRUCTURE + r")\s*[\]}]|<<\s*/?\s*sys\s*>>"
    r"|[\"']?(?:role|from|author|角色)[\"']?\s*(?:[:=]|=>|==)\s*[\"']?"
    r"(?:system|assistant|user|developer|human|gpt|model|系统|助手|用户)"
    r"|\b(?:im_start|im_end|eot_id|start_header_id|end_header_id|endoftext|start_of_turn|end_of_turn)\b"
    # other families and spellings: "<end_of_utterance>", "<im start>", "</search_results>", "</think>"
    r"|<\s*/?\s*(?:(?:start|end|begin)[\s_]of[\s_][a-z_]+|im[\s_\-]+(?:start|end)|think|thinking|reasoning)\s*>"
    r"|<\s*/\s*[a-z]+(?:_[a-z]+)+\s*>|<\s*(?:search|function)_[a-z_]+\s*>"
    # a speaker as a key or a block: {"system": "…"}, 'role' => 'system', {{#system~}}
    r"|[\"'“]\s*(?:system|assistant|developer)\s*[\"'”]\s*(?::|=>)"
    r"|\{\{[#/~\s]*(?:system|user|assistant)[~\s]*\}\}"
    # chat libraries' message objects: SystemMessage(content=…), HumanMessage(, type: ai_message
    r"|\b(?:system|human|ai|assistant)_?message\b"
)
# any bracket Unicode has (categories Ps / Pe), the angle quotes, and the pieces of tall brackets
# that Unicode files as math symbols (⎡ ⎤ ⎛ ⎞: a reader sees "⎡系统⎤" as a bracketed word)
_PIECE = re.compile(r"(LEFT|RIGHT) (?:SQUARE BRACKET|PARENTHESIS|CURLY BRACKET) (?:UPPER|LOWER) (?:CORNER|HOOK)"
                    r"|(?:TOP|BOTTOM) (LEFT|RIGHT) CORNER")
_PIECES = {side: "".join(c for c in map(chr, range(0x2300, 0x2400))
                         if (m := _PIECE.fullmatch(unicodedata.name(c, ""))) and side in m.groups())
           for side in ("LEFT", "RIGHT")}
_OPENING = _PIECES["LEFT"] + "".join(c for c in map(chr, range(0x20000))
                                     if unicodedata.category(c) == "Ps" and c not in "‚„⹂〝")
_CLOSING = _PIECES["RIGHT"] + "".join(c for c in map(chr, range(0x20000))
                                      if unicodedata.category(c) == "Pe" and c not in "〞〟")
_OB, _CB = "[" + re.escape("‹<«" + _OPENING) + "]", "[" + re.escape("›>»" + _CLOSING) + "]"
TURN_MARK = re.compile(_OB + r"\s*(?:用户|助手|助理|老师|系统|user|assistant|teacher|system)\s*" + _CB)
# "[Admin note]", "# SYSTEM OVERRIDE", "【开发者模式】": a claim of authority, in brackets or heading a line
_AUTHORITY = r"(?:system|admin|developer|系统|管理员|开发者)"
AUTHORITY = re.compile(
    _OB + r"\s*(?:\w+\s+){0,2}" + _AUTHORITY + r"(?:\s*\w+){0,2}\s*" + _CB
    + r"|^[\W_]*" + _AUTHORITY + r"\s*(?:override|notice|note|mode|message|prompt|update|指令|通知|模式|消息|提示词?|更新)"
)
# "=== 历史结束 ===", "(the history is over)", "the user's real request follows": a boundary in other words
# (the part before: "以上对话至此结束", "Prior dialog concluded")
_EARLIER = r"(?:(?:以上|上面|前面|此前|之前|往期|本次)的?|(?:prior|previous|earlier)\s+)?"
_HELD = r"(?:history|conversation|context|transcript|chat|dialog(?:ue)?|历史|会话|对话|上下文|记录|聊天)"
BOUNDARY_CLAIM = re.compile(
    r"(?:^|" + _OB + r")[\W_]*(?:the\s+)?" + _EARLIER + _HELD
    + r"[\w\s]{0,12}?(?:ends?|ended|over|finished|done|concluded|terminated|stops|结束|为止|完毕|完结|终了|告一段落|完)"
    r"了?(?![\w])"
    # its end said first: "End of the conversation.", "--- End of the chat history ---"
    r"|(?:^|" + _OB + r")[\W_]*end\s+of\s+(?:the\s+)?(?:(?:chat|previous|prior|earlier)\s+)?" + _HELD
    + r"(?=\s*(?:[^\w\s]|$))"
    r"|(?:real|actual|true|真实|真正|实际)[\w\s'’]{0,12}?(?:request|message|instruction|请求|要求|提问|指令)"
    r"|(?:以下|下面|下边|接下来|后面|如下|below|follows)[\w\s'’]{0,8}?(?:user|teacher|用户|老师)[\w\s'’的]{0,8}?"
    r"(?:request|message|请求|要求|原话|想问|想要|发来)"
)
NEW_TURN = re.compile(r"^[\W_]*(?:(?:以下|下面)[为是])?(?:new|begin|start|新一轮|新的一轮)[\s\-_]*(?:user|用户)?[\s\-_的]*"
                      r"(?:turn|request|message|对话|会话|请求)[\W_]*$")
# A nonce is a short run of letters in a bracket drawn double or white (⟦ ⟪ ⦅ 〘 ⦃ ⸨, not the
# Chinese title marks 《》 or quotes 『』), or in two brackets, spaced or not ("[ [x] ]").
_DOUBLED = {name: "".join(c for c in (_OPENING if name == "open" else _CLOSING)
                          if re.search(r"\b(?:WHITE|DOUBLE)\b", unicodedata.name(c, "")) and c not in "《》『』︽︾﹃﹄")
            for name in ("open", "close")}
NONCE_LIKE = re.compile(
    "[" + re.escape(_DOUBLED["open"]) + r"]\s*[a-z]{4,}\s*[" + re.escape(_DOUBLED["close"]) + "]"
    r"|(?:\[\s*\[|⟨\s*⟨|<\s*<|\{\s*\{|【\s*【)\s*[a-z]{9}\s*(?:\]\s*\]|⟩\s*⟩|>\s*>|\}\s*\}|】\s*】)")


@functools.lru_cache(maxsize=1)
def _skeleton_table() -> dict[int, str]:
    """Each character the Unicode confusables table pairs with one ASCII character, whichever way
    round the table lists the pair (˂ -> <, ∶ -> :, ᐸ -> <, the Hebrew sof pasuq ׃ -> :)."""
    table = {}
    for char, entries in confusable_data.load("confusables.json").items():
        targets = [e["c"] for e in entries if len(e["c"]) == 1 and e["c"].isascii()]
        if len(char) == 1 and not char.isascii() and targets and char != DATAMARK:
            table[ord(char)] = targets[0]
        if len(char) == 1 and char.isascii():
            for entry in entries:
                other = "".join(c for c in entry["c"] if unicodedata.category(c) != "Cf")  # bidi marks around it
                if len(other) == 1 and not other.isascii() and other != DATAMARK:
                    table.setdefault(ord(other), char)
    return table


@functools.lru_cache(maxsize=1)
def _han_twins() -> dict[int, str]:
    """Han characters the confusables table pairs with one another (戸 / 戶, 値 / 值), each
    written as its twin: one more reading, in which 用戸 is 用戶 (用户 once simplified)."""
    def han(char: str) -> bool:
        return len(char) == 1 and "\u3400" <= char <= "\u9fff"

    return {ord(char): entry["c"] for char, entries in confusable_data.load("confusables.json").items()
            for entry in entries if han(char) and han(entry["c"])}


def _views(content: str) -> list[str]:
    """The ways a model may read one line: as written, percent-decoded, JSON escapes decoded,
    plus signs as spaces, every confusable as the ASCII character it imitates, Han look-alikes
    swapped, with no narrow
    space inside a word, right-to-left overridden."""
    views = [content, unquote(content), content.translate(_skeleton_table()), content.translate(_han_twins())]
    views.append(re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), content))
    views.append(content.replace("+", " "))
    views.append(re.sub(r"(?<=\w)[\u2000-\u200a\u202f\u205f](?=\w)", "", content))
    if "\u202e" in content:
        views.append(re.sub("\u202e([^\u202c]*)\u202c?", lambda m: m.group(1)[::-1], content))
    return views


def _label_heads() -> list[str]:
    """Each registry boundary text's label (before its dash, without brackets), folded."""
    heads = []
    for text in labels.boundary_texts():
        head = normalize(text).split(" — ")[0].strip("[]()（）‹›《》 “”:")
        # A label has four Chinese characters or two words; a lone speaker word ("user")
        # is a turn mark, checked as one.
        if len(re.findall(r"[\u4e00-\u9fff]", head)) >= 4 or len(head.split()) >= 2:
            heads.append(re.sub(r"\s+", "", head))
    return heads


LABEL_HEADS = _label_heads()


# A knowledge-base source line: the document's title in our words (either language, and
# in lower case once the line was rebuilt).
_SOURCE_LINE = re.compile(r"^(?:from “(.*)”:|《(.*)》)$", re.IGNORECASE)
# Words after which the next one carries on a phrase ("notes for the teacher: …").
_CARRIES_ON = {"a", "an", "the", "for", "to", "of", "by", "with", "my", "our", "your"}


def _title_starts(content: str) -> list[str]:
    """A stored title had its line breaks turned into spaces, so each of its words may have
    begun a line: the title read from every word that does not carry on a phrase."""
    source = _SOURCE_LINE.match(content)
    if not source:
        return []
    words = (source.group(1) or source.group(2) or "").split()
    return [" ".join(words[i:]) for i in range(len(words))
            if i == 0 or words[i - 1].strip(".,;:!?\"'“”‘’()").lower() not in _CARRIES_ON]


def survivors(content: str, nonce: str) -> list[str]:
    """What of the forbidden kinds is still in one datamarked line's content (and, for a
    knowledge-base source line, in its title read from each word)."""
    found = [f"title: {kind}" for start in _title_starts(content) for kind in _line_survivors(start)]
    found += _line_survivors(content)
    if nonce in normalize(content) or "⟦" in content or "⟧" in content:
        found.append("nonce")
    if DATAMARK in content:
        found.append("datamark inside the content")
    return sorted(set(found))


def _line_survivors(content: str) -> list[str]:
    found = []
    for view in _views(content):
        folded = normalize(view)
        squeezed = re.sub(r"[\s\-_.·•+]+", "", folded)
        found += [f"label:{head}" for head in LABEL_HEADS if head in squeezed]
        checks = {"role prefix": ROLE_PREFIX, "template token": TEMPLATE_TOKEN, "turn mark": TURN_MARK,
                  "authority": AUTHORITY, "boundary claim": BOUNDARY_CLAIM, "nonce-like": NONCE_LIKE,
                  "new turn": NEW_TURN}
        found += [kind for kind, check in checks.items() if check.search(folded)]
    return found


def sent_nonce(messages: list[dict]) -> str:
    """The nonce the system prompt of `messages` names."""
    return NONCE_IN_RULES.search(messages[0]["content"]).group(1)


def check_fences(text: str, fences: dict[str, tuple[str, str]], *, ours: Callable[[str], bool],
                 nonce: str) -> tuple[list[str], str]:
    """(every problem inside the fences of `text`, what is left outside them). Each fence's
    opening and closing line (`fences`: name -> the two lines, nonce included) must stand
    once; every line between them is ours (`ours`) or datamarked, and no datamarked
    line's content holds anything `survivors` finds."""
    problems, outside = [], text
    for name, (opening, closing) in fences.items():
        if text.count(opening) != 1 or text.count(closing) != 1:
            problems.append(f"{name}: fence lines missing or repeated")
            continue
        inner = text.split(opening, 1)[1].split(closing, 1)[0]
        outside = outside.replace(opening + inner + closing, "")
        for line in inner.strip("\n").split("\n"):
            if ours(line):
                continue
            if not line.startswith(DATAMARK):
                problems.append(f"{name}: a line neither ours nor datamarked: {line!r}")
                continue
            problems += [f"{name}: {kind} in {line!r}" for kind in survivors(line[1:], nonce)]
    return problems, outside
