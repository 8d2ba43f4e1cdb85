"""Any OpenAI-compatible endpoint: Qwen's cloud API (DashScope compatible mode), vLLM,
llama.cpp's server, Ollama's /v1."""

import logging

import openai

from agents.providers.base import Completion, Provider, ProviderError, messages_tokens
from core.tokens import count_tokens

log = logging.getLogger(__name__)


def _error(exc: Exception) -> ProviderError:
    if isinstance(exc, openai.APITimeoutError):
        return ProviderError("provider_timeout", str(exc))
    if isinstance(exc, openai.APIConnectionError):
        return ProviderError("provider_unavailable", str(exc))
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return ProviderError("provider_auth_failed", str(exc))
    if isinstance(exc, openai.RateLimitError):
        return ProviderError("provider_rate_limited", str(exc))
    if isinstance(exc, openai.APIStatusError):
        code = "provider_unavailable" if exc.status_code in (502, 503, 504) else "provider_error"
        return ProviderError(code, f"HTTP {exc.status_code}: {exc}")
    return ProviderError("provider_error", repr(exc))


class OpenAIProvider(Provider):
    kind = "openai"

    def _client(self) -> openai.OpenAI:
        return openai.OpenAI(
            base_url=self.base_url or None,
            api_key=self.api_key or "not-needed",
            timeout=self.timeout,
            max_retries=1,
        )

    def complete(self, messages, *, max_tokens=512, purpose="chat") -> Completion:
        try:
            response = self._client().chat.completions.create(
                model=self.model or "default", messages=messages, max_tokens=max_tokens, stream=False
            )
        except openai.OpenAIError as exc:
            raise _error(exc) from exc
        if not isinstance(response, openai.types.chat.ChatCompletion) or not response.choices:
            raise ProviderError("provider_error", f"not a chat completion: {str(response)[:200]!r}")
        text = response.choices[0].message.content or ""
        usage = response.usage
        return Completion(
            text=text,
            prompt_tokens=(usage.prompt_tokens if usage else 0) or messages_tokens(messages),
            completion_tokens=(usage.completion_tokens if usage else 0) or count_tokens(text),
            model=response.model or self.model,
            finish_reason=response.choices[0].finish_reason or "",
        )

    def stream(self, messages, *, max_tokens=512, purpose="chat"):
        parts: list[str] = []
        prompt_tokens = completion_tokens = 0
        finish_reason = ""
        stream = None
        try:
            stream = self._client().chat.completions.create(
                model=self.model or "default",
                messages=messages,
                max_tokens=max_tokens,
                stream=True,
                stream_options={"include_usage": True},
            )
            for chunk in stream:
                if chunk.usage:
                    prompt_tokens = chunk.usage.prompt_tokens or prompt_tokens
                    completion_tokens = chunk.usage.completion_tokens or completion_tokens
                for choice in chunk.choices or []:
                    finish_reason = choice.finish_reason or finish_reason
                    piece = choice.delta.content if choice.delta else None
                    if piece:
                        parts.append(piece)
                        yield "delta", piece
        except openai.OpenAIError as exc:
            raise _error(exc) from exc
        finally:
            # Closed early (the teacher pressed stop, the page went away): close the upstream
            # connection now, so the model server stops generating for nobody.
            if stream is not None:
                stream.close()
        text = "".join(parts)
        yield "done", Completion(
            text=text,
            prompt_tokens=prompt_tokens or messages_tokens(messages),
            completion_tokens=completion_tokens or count_tokens(text),
            model=self.model,
            finish_reason=finish_reason,
        )
