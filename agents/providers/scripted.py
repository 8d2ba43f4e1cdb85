"""A deterministic provider for tests only (refused unless settings allow it).

Replies come from a queue that a test fills (`queue_replies`) or, when the queue is
empty, from the responder named by settings.SCRIPTED_RESPONDER. Every call is recorded
in `calls` so a test can assert on exactly what the model was sent.
"""

import re
import threading
from collections import deque

from django.conf import settings
from django.utils.module_loading import import_string

from agents.providers.base import Completion, Provider, ProviderError, messages_tokens
from core.tokens import count_tokens, truncate_tokens

calls: list[dict] = []
_replies: deque = deque()
_lock = threading.Lock()


def queue_replies(*replies, purpose: str | None = None) -> None:
    """Queue replies: a str, a callable(messages, purpose) -> str, or a ProviderError to raise.

    With `purpose` ("chat", "compress", "extract", …) they answer only calls of that
    purpose, so a test can script one memory step without feeding the others."""
    with _lock:
        _replies.extend((purpose, reply) for reply in replies)


def reset() -> None:
    with _lock:
        calls.clear()
        _replies.clear()


def last_call(purpose: str = "chat") -> dict:
    for call in reversed(calls):
        if call["purpose"] == purpose:
            return call
    raise AssertionError(f"the scripted provider got no {purpose!r} call")


def _take_reply(purpose: str):
    for index, (wanted, reply) in enumerate(_replies):
        if wanted is None or wanted == purpose:
            del _replies[index]
            return reply
    return None


_REPLY_DIRECTIVE = re.compile(r"REPLY:(.+)", re.DOTALL)


def default_responder(messages: list[dict], purpose: str) -> str:
    """Deterministic answers a reader can predict from the input."""
    user = messages[-1]["content"] if messages else ""
    if purpose == "chat":
        request = user.rsplit("\n", 1)[-1] if "\n" in user else user
        directive = _REPLY_DIRECTIVE.search(user)
        if directive:
            return directive.group(1).strip()
        return f"好的，已收到：{request.strip()[:200]}"
    if purpose == "extract":
        return "NONE"
    # compress / summarize: a short, deterministic digest of what was given.
    lines = [line.strip() for line in user.splitlines() if line.strip()]
    return "；".join(line[:60] for line in lines[-6:])[:400]


class ScriptedProvider(Provider):
    kind = "scripted"

    def __init__(self, **kwargs):
        if not settings.ALLOW_SCRIPTED_PROVIDER:
            raise ProviderError("provider_not_allowed", "the scripted provider is for tests only")
        super().__init__(**kwargs)

    @property
    def is_local(self) -> bool:
        return True

    def _reply(self, messages, purpose) -> str:
        with _lock:
            calls.append({"messages": [dict(m) for m in messages], "purpose": purpose, "model": self.model})
            reply = _take_reply(purpose)
        if reply is None:
            reply = import_string(settings.SCRIPTED_RESPONDER)
        if isinstance(reply, ProviderError):
            raise reply
        if callable(reply):
            reply = reply(messages, purpose)
            if isinstance(reply, ProviderError):
                raise reply
        return str(reply)

    def stream(self, messages, *, max_tokens=512, purpose="chat"):
        text = self._reply(messages, purpose)
        finish_reason = "stop"
        if purpose == "chat" and count_tokens(text) > max_tokens:
            # Like a real model at its cap: the reply stops mid-way and says why.
            text, finish_reason = truncate_tokens(text, max_tokens, marker=""), "length"
        # Small pieces so streaming is observable (CJK text has no spaces to split on).
        for start in range(0, len(text), 4):
            yield "delta", text[start:start + 4]
        yield "done", Completion(
            text=text, prompt_tokens=messages_tokens(messages), completion_tokens=count_tokens(text), model=self.model,
            finish_reason=finish_reason,
        )
