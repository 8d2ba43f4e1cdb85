"""The extraction question (with red line 1) and a tolerant reader of the answer.

The exchange is untrusted (the teacher's words, and an output that may echo a retrieved
document), so it is fenced as the run prompt fences history (core.fencing): each call
draws a fresh nonce that the opening and closing lines carry and the system prompt
names, and every line of the exchange is sanitized and datamarked, so no text inside it
can end the exchange early and add instructions of its own.

Models answer with a JSON list, a JSON list inside a code fence or prose, a bulleted
list, or NONE in any case and language. `parse_facts` returns the proposed facts, an
empty list for "nothing worth keeping", and None only when it cannot tell.
"""

import json
import re
from dataclasses import dataclass

from core import labels
from core.fencing import DATAMARK, fence_rules, fit_untrusted, new_nonce, with_nonce
from core.text import clean_text

INPUT_TOKENS = 1500
OUTPUT_TOKENS = 1000
MAX_TOKENS = 400
DEFAULT_CONFIDENCE = 0.5

SYSTEM = {
    "zh": (
        "你是教学助手的记忆整理员。阅读下面这一轮对话（老师的请求和助手的回复），判断其中有没有值得长期记住的、"
        "关于这位老师本人的事实或偏好，例如所教年级和学科、出题偏好、上课安排、教学风格。\n\n"
        "红线（必须遵守）：绝不记录身份证件号码、手机号、银行卡号；绝不记录任何学生的成绩、分数或排名；"
        "绝不记录任何人的健康状况或疾病；绝不记录学生的家庭情况。涉及这些内容的事实一律不要输出。\n\n"
        '只输出一个 JSON 数组，每项形如 {"fact": "一句话的事实", "confidence": 0 到 1 之间的数}，'
        "每条事实不超过 60 个字，最多 5 条。没有值得记住的内容时只输出 NONE。"
    ),
    "en": (
        "You keep the long-term memory of a teaching assistant. Read the exchange below (the teacher's request "
        "and the assistant's reply) and decide whether it holds a fact or preference about the teacher worth "
        "remembering for a long time: grade and subject taught, question-style preferences, class schedule, "
        "teaching style.\n\n"
        "Red line (mandatory): never record identity document numbers, phone numbers or bank card numbers; never "
        "record any student's grades, scores or rankings; never record anyone's health conditions or illnesses; "
        "never record students' family circumstances. Leave out every fact that touches these.\n\n"
        'Answer with a JSON list only, each item like {"fact": "one-sentence fact", "confidence": a number from '
        "0 to 1}, at most 5 items of at most 30 words each. If nothing is worth remembering, answer NONE only."
    ),
}
OPEN = labels.EXTRACTION_OPEN
CLOSE = labels.EXTRACTION_CLOSE
SPEAKERS = labels.EXTRACTION_SPEAKERS


def extraction_messages(*, input: str, output: str, language: str) -> list[dict]:
    """The system prompt (the fence rules naming a fresh nonce, then the question) and the
    exchange: our speaker lines, each followed by its datamarked text (the datamarks
    count in INPUT_TOKENS / OUTPUT_TOKENS), between boundary lines carrying the nonce."""
    language = language if language in SYSTEM else "zh"
    nonce = new_nonce()
    teacher, assistant = SPEAKERS[language]

    def untrusted(text: str, limit: int) -> str:
        return fit_untrusted(text, language=language, nonce=nonce, limit=limit) or DATAMARK

    exchange = "\n".join([
        with_nonce(OPEN[language], nonce),
        teacher, untrusted(input, INPUT_TOKENS),
        assistant, untrusted(output, OUTPUT_TOKENS),
        with_nonce(CLOSE[language], nonce),
    ])
    system = f"{fence_rules(language, nonce)}\n\n{SYSTEM[language]}"
    return [{"role": "system", "content": system}, {"role": "user", "content": exchange}]


@dataclass(frozen=True)
class ProposedFact:
    text: str
    confidence: float


_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_NONE_WORDS = {"none", "null", "nil", "n/a", "nothing", "no", "无", "没有", "无事实", "无内容", "空"}
_NONE_START = re.compile(r"^(?:none|nothing|no\s+(?:facts?|preferences?)|无|没有)(?![A-Za-z])", re.IGNORECASE)
_NONE_STRIP = " \t\r\n.。!！,，:：;；\"'“”‘’`*_()（）[]【】"
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,2}[.、)）])\s*(.+?)\s*$")
_FACT_KEYS = ("fact", "text", "content", "事实", "内容")
_CONFIDENCE_KEYS = ("confidence", "conf", "置信度", "score")
_LIST_KEYS = ("facts", "items", "candidates", "results", "事实")
_SMART_QUOTES = str.maketrans({"“": '"', "”": '"'})
_TRAILING_COMMA = re.compile(r",\s*([\]}])")


def parse_facts(text: str | None) -> list[ProposedFact] | None:
    if text is None:
        return None
    body = clean_text(text).strip()  # a model's NUL or control character must not reach the database
    fence = _FENCE.search(body)
    if fence:
        body = fence.group(1).strip()
    if _is_none(body):
        return []
    data = _first_json(body)
    if data is not None:
        items = _items(data)
        if items is not None:
            return items
    if _NONE_START.match(body.strip(_NONE_STRIP)):
        return []
    bullets = [ProposedFact(match.group(1), DEFAULT_CONFIDENCE) for match in map(_BULLET.match, body.splitlines())
               if match and not _is_none(match.group(1))]
    return bullets or None


def _is_none(text: str) -> bool:
    return text.strip(_NONE_STRIP).casefold() in _NONE_WORDS


def _first_json(body: str):
    body = _TRAILING_COMMA.sub(r"\1", body.translate(_SMART_QUOTES))
    try:
        return json.loads(body)
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    starts = [i for i, char in enumerate(body) if char in "[{"][:50]
    for start in starts:
        try:
            data, _ = decoder.raw_decode(body, start)
        except ValueError:
            continue
        if isinstance(data, (list, dict)) and _items(data) is not None:
            return data
    return None


def _items(data) -> list[ProposedFact] | None:
    if isinstance(data, dict):
        for key in _LIST_KEYS:
            if isinstance(data.get(key), list):
                return _items(data[key])
        data = [data]
    if not isinstance(data, list):
        return None
    if not data:
        return []
    out, nothing = [], 0
    for item in data:
        if isinstance(item, str):
            fact, confidence = item, DEFAULT_CONFIDENCE
        elif isinstance(item, dict):
            fact = next((item[k] for k in _FACT_KEYS if isinstance(item.get(k), str)), None)
            confidence = next((item[k] for k in _CONFIDENCE_KEYS if k in item), DEFAULT_CONFIDENCE)
        else:
            continue
        if fact is not None and (not fact.strip() or _is_none(fact)):
            nothing += 1
            continue
        if fact is not None:
            out.append(ProposedFact(fact.strip(), _confidence(confidence)))
    if not out and nothing == len(data):
        return []  # ["NONE"], [{"fact": ""}]
    return out or None


def _confidence(value) -> float:
    try:
        number = float(str(value).strip().rstrip("%"))
    except (TypeError, ValueError):
        return DEFAULT_CONFIDENCE
    if number != number:  # NaN
        return DEFAULT_CONFIDENCE
    if 1 < number <= 100:
        number /= 100
    return min(1.0, max(0.0, number))
