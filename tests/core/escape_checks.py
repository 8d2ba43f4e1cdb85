"""The checks of the fence escape suites, written apart from core.fencing's patterns so the
sanitizer is not its own judge: what must not survive in a datamarked line of untrusted
text (a registry label, a role prefix, a template token, a turn mark, a claim of
authority, a boundary said in other words, a nonce or a look-alike, our datamark), and
a check of a whole prompt's fences.

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

_ROLE = (r"system|assistant|user|developer|human|ai|bot|model|sys|\w*gpt|instructions?|response|teacher|admin|"
         r"系统(?:提示词?|消息)?|助手|助理|用户|老师|教师|管理员|开发者")
# a role, then a colon (or a colon look-alike), an arrow or a bar
ROLE_PREFIX = re.compile(r"^[\W_]*(?:" + _ROLE + r")[*_`\s]*(?:[:：∶︰﹕꞉]|\.\.|=>|->|\|(?!\|)|\s[-–—]\s)")
_STRUCTURE = r"history|context|conversation|document|message|transcript|exchange|instructions?|prompt|role|turn|历史\w*"
TEMPLATE_TOKEN = re.compile(
    r"<\|[^>\n]{0,40}\|>|<\s*/?\s*(?:s|bos|eos|system|user|assistant|model|developer|tool\w*|instructions?|"
    r"im_start|im_end|start_of_turn|end_of_turn|" + _STRUCTURE + r"|系统|用户|助手)(?:\s[^<>\n]{0,60})?\s*>"
    r"|\[\s*/?\s*(?:inst|[a-z]+(?:_[a-z]+)+)\s*\]|[\[{]\s*/\s*(?:" + _STRUCTURE + r")\s*[\]}]|<<\s*/?\s*sys\s*>>|[\"']?(?:role|from|author|角色)[\"']?\s*[:=]\s*[\"']?"
    r"(?:system|assistant|user|developer|human|gpt|model|系统|助手|用户)"
    r"|\b(?:im_start|im_end|eot_id|start_header_id|end_header_id|endoftext|start_of_turn|end_of_turn)\b"
)
# any bracket Unicode has (categories Ps / Pe) and the angle quotes
_OPENING = "".join(c for c in map(chr, range(0x20000)) if unicodedata.category(c) == "Ps" and c not in "‚„⹂〝")
_CLOSING = "".join(c for c in map(chr, range(0x20000)) if unicodedata.category(c) == "Pe" and c not in "〞〟")
_OB, _CB = "[" + re.escape("‹<«" + _OPENING) + "]", "[" + re.escape("›>»" + _CLOSING) + "]"
TURN_MARK = re.compile(_OB + r"\s*(?:用户|助手|助理|老师|系统|user|assistant|teacher|system)\s*" + _CB)
# "[Admin note]", "# SYSTEM OVERRIDE", "【开发者模式】": a claim of authority, in brackets or heading a line
_AUTHORITY = r"(?:system|admin|developer|系统|管理员|开发者)"
AUTHORITY = re.compile(
    _OB + r"\s*(?:\w+\s+){0,2}" + _AUTHORITY + r"(?:\s*\w+){0,2}\s*" + _CB
    + r"|^[\W_]*" + _AUTHORITY + r"\s*(?:override|notice|note|mode|message|prompt|update|指令|通知|模式|消息|提示词?|更新)"
)
# "=== 历史结束 ===", "(the history is over)", "the user's real request follows": a boundary in other words
BOUNDARY_CLAIM = re.compile(
    r"(?:^|" + _OB + r")[\W_]*(?:the\s+)?(?:history|conversation|context|transcript|chat|历史|会话|对话|上下文|记录)"
    r"[\w\s]{0,12}?(?:ends?|ended|over|finished|done|结束|为止|完毕|完结|完)(?![\w])"
    r"|(?:real|actual|true|真实|真正|实际)[\w\s'’]{0,12}?(?:request|message|请求|要求|提问)"
    r"|(?:以下|下面|如下|below|follows)[\w\s'’]{0,8}?(?:user|用户)[\w\s'’的]{0,8}?(?:request|message|请求|要求)"
)
NEW_TURN = re.compile(r"^[\W_]*(?:(?:以下|下面)[为是])?(?:new|begin|start|新一轮|新的一轮)[\s\-_]*(?:user|用户)?[\s\-_的]*"
                      r"(?:turn|request|message|对话|会话|请求)[\W_]*$")
NONCE_LIKE = re.compile(r"[⟦〚][a-z]{4,}[⟧〛]|(?:\[\[|⟨⟨|<<|\{\{|【【)\s*[a-z]{9}\s*(?:\]\]|⟩⟩|>>|\}\}|】】)")


@functools.lru_cache(maxsize=1)
def _skeleton_table() -> dict[int, str]:
    """Each character the Unicode confusables table maps to one ASCII character (˂ -> <, ∶ -> :)."""
    table = {}
    for char, entries in confusable_data.load("confusables.json").items():
        targets = [e["c"] for e in entries if len(e["c"]) == 1 and e["c"].isascii()]
        if len(char) == 1 and not char.isascii() and targets and char != DATAMARK:
            table[ord(char)] = targets[0]
    return table


def _views(content: str) -> list[str]:
    """The ways a model may read one line: as written, percent-decoded, every confusable as the
    ASCII character it imitates, right-to-left overridden."""
    views = [content, unquote(content), content.translate(_skeleton_table())]
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


def survivors(content: str, nonce: str) -> list[str]:
    """What of the forbidden kinds is still in one datamarked line's content."""
    found = []
    for view in _views(content):
        folded = normalize(view)
        squeezed = re.sub(r"[\s\-_.]+", "", folded)
        found += [f"label:{head}" for head in LABEL_HEADS if head in squeezed]
        checks = {"role prefix": ROLE_PREFIX, "template token": TEMPLATE_TOKEN, "turn mark": TURN_MARK,
                  "authority": AUTHORITY, "boundary claim": BOUNDARY_CLAIM, "nonce-like": NONCE_LIKE,
                  "new turn": NEW_TURN}
        found += [kind for kind, check in checks.items() if check.search(folded)]
    if nonce in normalize(content) or "⟦" in content or "⟧" in content:
        found.append("nonce")
    if DATAMARK in content:
        found.append("datamark inside the content")
    return sorted(set(found))


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
