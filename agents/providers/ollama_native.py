"""Ollama's native chat API, through the official client."""

import httpx
import ollama

from agents.providers.base import Completion, Provider, ProviderError, messages_tokens
from core.tokens import count_tokens


def _error(exc: Exception) -> ProviderError:
    if isinstance(exc, httpx.TimeoutException):
        return ProviderError("provider_timeout", str(exc))
    if isinstance(exc, httpx.TransportError | ConnectionError):
        return ProviderError("provider_unavailable", str(exc))
    if isinstance(exc, ollama.ResponseError):
        code = "provider_unavailable" if exc.status_code in (502, 503, 504) else "provider_error"
        return ProviderError(code, f"HTTP {exc.status_code}: {exc.error}")
    return ProviderError("provider_error", repr(exc))


class OllamaProvider(Provider):
    kind = "ollama"

    def _client(self) -> ollama.Client:
        return ollama.Client(host=self.base_url or "http://127.0.0.1:11434", timeout=self.timeout)

    def stream(self, messages, *, max_tokens=512, purpose="chat"):
        parts: list[str] = []
        prompt_tokens = completion_tokens = 0
        finish_reason = ""
        try:
            for chunk in self._client().chat(
                model=self.model, messages=messages, stream=True, options={"num_predict": max_tokens}
            ):
                piece = chunk.message.content if chunk.message else ""
                if piece:
                    parts.append(piece)
                    yield "delta", piece
                if chunk.done:
                    prompt_tokens = chunk.prompt_eval_count or 0
                    completion_tokens = chunk.eval_count or 0
                    finish_reason = getattr(chunk, "done_reason", "") or ""
        except (ollama.ResponseError, httpx.HTTPError, ConnectionError) as exc:
            raise _error(exc) from exc
        text = "".join(parts)
        yield "done", Completion(
            text=text,
            prompt_tokens=prompt_tokens or messages_tokens(messages),
            completion_tokens=completion_tokens or count_tokens(text),
            model=self.model,
            finish_reason=finish_reason,
        )
