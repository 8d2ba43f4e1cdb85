"""The provider interface: a chat completion, plain or streamed, with real token counts.

Every failure becomes a ProviderError with a stable code; the upstream message is
logged by the caller and never returned to a client.
"""

import ipaddress
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import urlparse

from django.conf import settings

from core.tokens import count_tokens


class ProviderError(Exception):
    """`code` is public (provider_unavailable, provider_timeout, provider_error, …);
    `detail` is for the log only."""

    def __init__(self, code: str, detail: str = ""):
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


@dataclass
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    model: str
    #: the provider's reason for ending ("stop", "length" = cut at max_tokens, "" = unknown)
    finish_reason: str = ""


def messages_tokens(messages: list[dict]) -> int:
    # ~4 tokens of chat framing per message, as OpenAI documents for cl100k models.
    return sum(count_tokens(m.get("content") or "") + 4 for m in messages) + 2


class Provider:
    kind = "base"
    #: Can this provider do memory work (summarise a thread, propose facts) well enough
    #: that its output is worth storing? A capability the class declares, never guessed
    #: from a model name. When False, memory work uses deterministic fallbacks (an
    #: extractive summary, no candidate facts, an excerpt) and makes no model call, so
    #: nothing junk is stored and nothing competes with the teacher's chat for the CPU.
    fit_for_memory = True

    def __init__(self, *, model: str = "", base_url: str = "", api_key: str = "", timeout: float | None = None):
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = timeout if timeout is not None else settings.PROVIDER_TIMEOUT_SECONDS

    @property
    def is_local(self) -> bool:
        """True when calls stay on this machine or the school's own network."""
        return endpoint_is_local(self.base_url)

    def complete(self, messages: list[dict], *, max_tokens: int = 512, purpose: str = "chat") -> Completion:
        text_parts = []
        final = None
        for kind, value in self.stream(messages, max_tokens=max_tokens, purpose=purpose):
            if kind == "delta":
                text_parts.append(value)
            else:
                final = value
        return final or Completion("".join(text_parts), messages_tokens(messages), count_tokens("".join(text_parts)), self.model)

    def stream(self, messages: list[dict], *, max_tokens: int = 512, purpose: str = "chat") -> Iterator[tuple[str, object]]:
        """Yield ("delta", text) pieces, then one ("done", Completion)."""
        raise NotImplementedError


def endpoint_is_local(base_url: str) -> bool:
    if not base_url:
        return False
    host = (urlparse(base_url if "//" in base_url else f"//{base_url}").hostname or "").lower()
    if host in ("localhost",) or host in {h.lower() for h in settings.LOCAL_PROVIDER_HOSTS}:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def price(model: str, prompt_tokens: int, completion_tokens: int) -> Decimal:
    table = settings.MODEL_PRICES.get(model) or settings.MODEL_PRICES.get((model or "").split("/")[-1])
    if not table:
        return Decimal("0")
    cost = (Decimal(str(table["input"])) * prompt_tokens + Decimal(str(table["output"])) * completion_tokens) / Decimal(
        1_000_000
    )
    return cost.quantize(Decimal("0.000001"))
