"""LLM calls made for memory work. Each call is billed to a MemoryOp, never to the run."""

import logging
from dataclasses import dataclass

from agents.models import MemoryOp
from agents.providers import ProviderError, memory_providers, price
from core.fencing import strip_datamarks
from core.tokens import count_tokens

log = logging.getLogger(__name__)


def memory_model_available(agent) -> bool:
    """Is there a provider fit for memory work for this agent? When not (the built-in
    demo model and no on-premises Ollama), memory work takes its deterministic
    fallbacks and makes no model call at all."""
    return bool(memory_providers(agent))


@dataclass
class MemoryCallResult:
    text: str
    op: MemoryOp


def memory_complete(
    *, agent, kind: str, messages: list[dict], run=None, thread=None, max_tokens: int = 512
) -> MemoryCallResult | None:
    """Ask the agent's own provider (falling back only to a local model).

    Returns None when every provider failed; a failed MemoryOp is recorded for each
    failure, so the cost dashboard and the admin see them. Never call this inside
    transaction.atomic: it is a network call.
    """
    scope = _scope(agent=agent, run=run, thread=thread)
    for provider in memory_providers(agent):
        try:
            completion = provider.complete(messages, max_tokens=max_tokens, purpose=kind)
        except ProviderError as exc:
            log.warning("memory %s via %s failed: %s", kind, provider.kind, exc)
            MemoryOp.objects.create(
                **scope,
                kind=kind,
                status=MemoryOp.Status.FAILED,
                error_code=exc.code,
                provider_kind=provider.kind,
                model=provider.model,
                input_tokens=sum(count_tokens(m.get("content") or "") for m in messages),
            )
            continue
        op = MemoryOp.objects.create(
            **scope,
            kind=kind,
            provider_kind=provider.kind,
            model=completion.model or provider.model,
            input_tokens=completion.prompt_tokens,
            output_tokens=completion.completion_tokens,
            cost=price(completion.model or provider.model, completion.prompt_tokens, completion.completion_tokens),
        )
        return MemoryCallResult(text=strip_datamarks(completion.text), op=op)
    return None


def memory_op_record(*, agent, run, thread, kind: str, **fields) -> MemoryOp:
    """A MemoryOp for memory work done without a model call (an extractive fold), scoped
    like the ones memory_complete records."""
    return MemoryOp.objects.create(**_scope(agent=agent, run=run, thread=thread), kind=kind, **fields)


def _scope(*, agent, run, thread) -> dict:
    source = run or thread
    return {
        "tenant_id": agent.tenant_id,
        "agent": agent,
        "run": run,
        "thread": thread if thread is not None else (run.thread if run is not None else None),
        "owner_id": getattr(source, "owner_id", None),
        "end_user": getattr(source, "end_user", "") or "",
    }
