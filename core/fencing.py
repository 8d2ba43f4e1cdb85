"""Untrusted text (history, recalled runs, documents) is sanitized, then fenced.

History is content users and models control, as untrusted as a tool's output. Before it
enters a prompt we neutralize what people use to smuggle instructions or roles in:
the seed's `[System]` / `[IMPORTANT]` / `INSTRUCTION` markers, chat-template tokens,
line-initial role prefixes, full-width bracket markers, our own section labels (so a
history can't fake the end of its fence) and zero-width characters used to split a
marker so a filter misses it. Then a layer wraps the text in its boundary text.
"""

import re

FILTERED = {"zh": "⟨已过滤⟩", "en": "⟨filtered⟩"}

# Zero-width and invisible formatting characters (removed before any matching).
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f]"
)
# Every line break a model or a regex might treat as one becomes "\n" before matching.
_LINE_BREAKS = re.compile("\r\n|[\r\u2028\u2029\x85\x0b\x0c]")

# Full-width Latin letters and digits fold to ASCII so `［ＳＹＳＴＥＭ］` is caught; CJK
# punctuation is left as it is.
_FULLWIDTH_ALNUM = {code: code - 0xFEE0 for code in range(0xFF10, 0xFF5B) if chr(code).isalnum()}

# Chat-template and special tokens of common model families.
_TEMPLATE_TOKENS = re.compile(
    r"<[|｜][^|｜<>\n]{1,40}[|｜]>"  # <|im_start|>, <|system|>, <|eot_id|>, DeepSeek's <｜User｜> …
    r"|<\s*/?\s*(?:s|start_of_turn|end_of_turn|bos|eos|sys|system|assistant|user|im_start|im_end)\s*>"
    r"|<<\s*/?\s*SYS\s*>>"
    r"|\[\s*/?\s*INST\s*\]",
    re.IGNORECASE,
)

_MARKER_WORDS = (
    r"system(?:\s*prompt|\s*message|\s*override)?|sys|important|instructions?|admin(?:istrator)?|developer|"
    r"assistant|override|jailbreak|root|"
    r"系统(?:提示|指令|消息|通知)?|重要(?:指令|通知)?|指令|管理员|开发者|最高指令|新指令|助手|用户"
)
# A marker word inside any kind of bracket, ASCII or full-width: [System], 【系统】, （重要）…
_BRACKET_MARKER = re.compile(
    r"[\[［【〔〖〘（(<＜《]\s*(?:" + _MARKER_WORDS + r")\s*[:：]?[^\]］】〕〗〙）)>＞》\n]{0,20}[\]］】〕〗〙）)>＞》]",
    re.IGNORECASE,
)
# A role prefix at the start of a line: `system:`, `Assistant :`, `系统：`, `### System:` …
_ROLE_PREFIX = re.compile(
    r"(?im)^[ \t>#*_`~\-]*(?:\d{1,3}[.)、]\s*)?[*_`~]*(?:system|assistant|developer|user|human|ai|tool|"
    r"系统(?:消息|提示|指令)?|助手|用户|管理员|开发者|人类)[*_`~]*\s*[:：]"
)
# Bare upper-case instruction words the seed names (`INSTRUCTION:`, `IMPORTANT!`).
_SHOUTED = re.compile(r"\b(?:INSTRUCTIONS?|IMPORTANT|SYSTEM)\b")

# Our own section labels and turn markers: history must not be able to close its fence.
_LABEL_WORDS = (
    r"本\s*[会會]\s*[话話]\s*前\s*情|核\s*心\s*[记記]\s*[忆憶]|相\s*[关關]\s*[历歷]\s*史|"
    r"知\s*[识識]\s*[库庫]\s*[检檢]\s*索\s*[结結]\s*果|用\s*[户戶]\s*[问問]\s*[题題]|上\s*次\s*[产產]\s*物|"
    r"[对對]\s*[话話]\s*[记記]\s*[录錄]\s*[结結]\s*束|"
    r"conversation\s+so\s+far|(?:the\s+)?user'?s?\s+(?:current\s+|real\s+)?request|core\s+memory|"
    r"related\s+history|knowledge\s+base\s+results|previous\s+artifact|"
    r"end\s+of\s+(?:the\s+)?(?:conversation|exchange|history|transcript|related\s+history|knowledge\s+base"
    r"(?:\s+results)?|previous\s+artifact|core\s+memory)"
)
# Our own section labels and turn markers: history must not be able to open or close a
# fence. In any bracket (or none, at the start of a line), with spaces or traditional
# characters inside.
_OWN_LABELS = re.compile(
    r"[\[［【〔〖〘（(<＜《「『〈«]\s*(?:end\s+of\s+(?:the\s+)?)?(?:" + _LABEL_WORDS + r")[^\n]{0,80}?"
    r"[\]］】〕〗〙）)>＞》」』〉»]"
    r"|(?im:^[ \t>#*_`~\-]*(?:" + _LABEL_WORDS + r"))",
    re.IGNORECASE,
)
_TURN_MARKS = str.maketrans({"‹": "<", "›": ">", "〈": "<", "〉": ">"})


def sanitize_untrusted(text: str, *, language: str = "zh") -> str:
    """Neutralize instruction and role markers in untrusted text. Idempotent."""
    if not text:
        return ""
    filtered = FILTERED.get(language, FILTERED["en"])
    out = _LINE_BREAKS.sub("\n", text)
    out = _INVISIBLE.sub("", out)
    out = out.translate(_FULLWIDTH_ALNUM)
    out = out.translate(_TURN_MARKS)
    out = _TEMPLATE_TOKENS.sub(filtered, out)
    out = _OWN_LABELS.sub(filtered, out)
    out = _BRACKET_MARKER.sub(filtered, out)
    out = _ROLE_PREFIX.sub(filtered, out)
    out = _SHOUTED.sub(filtered, out)
    return out


def contains_marker(text: str) -> bool:
    """True when `text` still holds something sanitize_untrusted would neutralize."""
    return sanitize_untrusted(text, language="en") != text.translate(_FULLWIDTH_ALNUM)
