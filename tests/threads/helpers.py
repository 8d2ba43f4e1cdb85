"""Small helpers shared by the thread tests."""

import re

from agents.providers import scripted
from core import labels
from core.fencing import DATAMARK
from threads.prompts import FENCE

ZH, EN = FENCE["zh"], FENCE["en"]

NONCE_TAG = re.compile(r" ⟦([a-z]{9})⟧")


def sent_nonce(purpose: str = "chat") -> str:
    """The fence nonce the system prompt of the last `purpose` call named."""
    return NONCE_TAG.search(scripted.last_call(purpose)["messages"][0]["content"]).group(1)


def without_nonce(prompt: str) -> str:
    """The prompt with the nonce tags of its boundary lines taken out."""
    return NONCE_TAG.sub("", prompt)


def said(marks: dict, speaker: str, text: str) -> str:
    """A turn as the thread section shows it: our speaker line, then the datamarked text."""
    return f"{marks[speaker].strip()}\n{DATAMARK}{text}"


def say(api, agent, text, memory_jobs=None, **body) -> dict:
    """One sync run (its memory job run inline when `memory_jobs` is given); its JSON reply."""
    if memory_jobs is None:
        response = api.run(agent, text, **body)
    else:
        with memory_jobs():
            response = api.run(agent, text, **body)
    assert response.status_code == 200, response.content
    return response.json()


def conversation(api, agent, texts, memory_jobs=None, **body) -> list[dict]:
    """Several turns in one thread; the replies."""
    replies, thread_id = [], body.pop("thread_id", None)
    for text in texts:
        reply = say(api, agent, text, memory_jobs, thread_id=thread_id, **body)
        thread_id = reply["thread_id"]
        replies.append(reply)
    return replies


def sent_prompt(purpose: str = "chat") -> str:
    """The user message the provider last received for `purpose`."""
    return scripted.last_call(purpose)["messages"][-1]["content"]


def thread_section(prompt: str, marks=ZH) -> str:
    """The text between the thread fence's opening and closing lines ("" when absent);
    both lines must carry a nonce."""
    plain = without_nonce(prompt)
    if marks["open"] not in plain:
        return ""
    for line in (marks["open"], marks["close"]):
        head, _, rest = line.partition(" — ")
        assert re.search(re.escape(head) + NONCE_TAG.pattern + re.escape(_ + rest), prompt), "a fence line lacks its nonce"
    inner = plain.split(marks["open"], 1)[1]
    assert marks["close"] in inner, "the fence is never left open"
    return inner.split(marks["close"], 1)[0]


def fenced_lines(prompt: str, opening: str, closing: str) -> list[str] | None:
    """The lines between a fence's opening and closing line (matched without their nonce
    tags); None when the prompt has no such fence."""
    lines = without_nonce(prompt).split("\n")
    if opening not in lines:
        return None
    start = lines.index(opening) + 1
    return lines[start:lines.index(closing, start)]


def unmarked(lines: list[str]) -> str:
    """Datamarked lines as the text they show (our own lines, such as "（无）" for no summary, dropped)."""
    return "\n".join(line[len(DATAMARK):] for line in lines if line.startswith(DATAMARK))


def read_compression(prompt: str) -> tuple[str, list[str] | None]:
    """A compression call's user message read as a scripted model would: (the summary it
    shows, "" for none; the folded turns' inputs, oldest first, or None for a "shorten it"
    request, which shows only a summary)."""
    for language, marks in labels.COMPRESS_USER.items():
        summary = fenced_lines(prompt, marks["summary"], marks["summary_close"])
        if summary is None:
            continue
        transcript = fenced_lines(prompt, marks["open"], marks["close"])
        if transcript is None:
            return unmarked(summary), None
        user, inputs = FENCE[language]["user"].strip(), []
        for index, line in enumerate(transcript):
            if line == user:
                end = next((i for i in range(index + 1, len(transcript)) if not transcript[i].startswith(DATAMARK)),
                           len(transcript))
                inputs.append(unmarked(transcript[index + 1:end]))
        return unmarked(summary), inputs
    raise AssertionError(f"not a compression prompt: {prompt[:200]!r}")


def digest_responder(messages, purpose):
    """Chat as the default responder; compression as "previous summary；input；input…",
    so a test can see exactly which turns were folded, in which order, how often."""
    if purpose != "compress":
        return scripted.default_responder(messages, purpose)
    previous, asked = read_compression(messages[-1]["content"])
    if asked is None:
        return previous  # a "shorten it" request: return the summary as it is
    return "；".join(part for part in [previous, *asked] if part)
