"""A run: validate, record it as running, assemble memory, call the provider, finish,
and enqueue exactly one memory job after commit.

    request -> validate (tenant, agent, thread) -> Run(status=running)
            -> assemble context via the layers (ledger, budgets, fences)
            -> store what was assembled on the run
            -> provider (sync or SSE stream) -> Run(completed|stopped|failed, tokens, cost)
            -> enqueue ONE memory job for the run

A streamed reply whose reader goes away after part of it arrived (the teacher pressed
停止生成, closed the tab or lost the network: the server sees the same closed
connection for all three) ends `stopped`: the streamed text is kept as its output and
its memory job treats it as a turn that was cut. The provider's stream is closed at
once. A reader gone before any text arrived leaves a failed run (`client_disconnected`).
"""

import json
import logging
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core import labels
from core.errors import AppError
from core.text import validate_text
from core.fencing import fence_rules, fit_untrusted, new_nonce, with_nonce
from agents import heartbeat
from agents.layers import ReadContext, assemble_context, resolve_thread
from agents.models import Run
from agents.providers import ProviderError, price, provider_for_agent
from core.tokens import count_tokens

log = logging.getLogger(__name__)

INPUT_LABEL = labels.INPUT_LABEL
ARTIFACT_OPEN = labels.ARTIFACT_OPEN
ARTIFACT_CLOSE = labels.ARTIFACT_CLOSE


@dataclass
class PreparedRun:
    run: Run
    messages: list[dict]


def validate_input(text) -> str:
    if not isinstance(text, str) or not text.strip():
        raise AppError("empty_input", "input must not be empty", status=422)
    text = validate_text(text)
    if len(text) > settings.WORKING_MEMORY_MAX_CHARS or count_tokens(text) > settings.WORKING_MEMORY_MAX_TOKENS:
        raise AppError(
            "input_too_long",
            f"input exceeds the working-memory limit ({settings.WORKING_MEMORY_MAX_TOKENS} tokens / "
            f"{settings.WORKING_MEMORY_MAX_CHARS} characters)",
            status=422,
        )
    return text


def _continued_run(*, actor, agent, run_id: str) -> Run:
    previous = Run.objects.filter(actor.owner_q(), pk=run_id, agent=agent).first()
    if previous is None:
        raise AppError("continue_run_mismatch", "context.run_id does not belong to this agent", status=400)
    if not previous.has_output:
        raise AppError("continue_run_not_completed", "only a completed or stopped run can be continued", status=409)
    return previous


def run_prepare(*, actor, agent, input: str, thread_id: str | None = None, continue_run_id: str | None = None,
                streamed: bool = False) -> PreparedRun:
    input = validate_input(input)
    language = agent.language
    with transaction.atomic():
        previous = _continued_run(actor=actor, agent=agent, run_id=continue_run_id) if continue_run_id else None
        thread = resolve_thread(actor=actor, agent=agent, thread_id=thread_id, input=input)
        run = Run.objects.create(
            **actor.owner_fields(),
            agent=agent,
            thread=thread,
            input=input,
            streamed=streamed,
            continued_from=previous,
            provider_kind=agent.provider_kind,
            model=agent.model,
        )
    try:
        nonce = new_nonce()
        ctx = ReadContext(run=run, agent=agent, actor=actor, thread=thread, input=input, language=language, shared={},
                          nonce=nonce)
        # The run is recorded as running: it beats from now on. A process's first read waits
        # for the segmenter and the embedding model to load (seconds on a busy machine).
        with heartbeat.beating(run.pk):
            ledger = assemble_context(ctx)
        messages = build_messages(agent=agent, sections=ledger.ordered_sections(), input=input, previous=previous,
                                  nonce=nonce)
        snapshot = ledger.snapshot()
        snapshot["fence_nonce"] = nonce
        snapshot["messages"] = messages
        snapshot["prompt_tokens_estimate"] = sum(count_tokens(m["content"]) for m in messages)
        Run.objects.filter(pk=run.pk).update(context=snapshot)
        run.context = snapshot
    except Exception:
        log.exception("assembling context for %s failed", run.pk)
        run_finish(run=run, error_code="internal_error")
        raise
    return PreparedRun(run=run, messages=messages)


def build_messages(*, agent, sections, input: str, previous: Run | None, nonce: str) -> list[dict]:
    """The system message (the fence rules naming this run's nonce, then the agent's own
    prompt) and one user message: the memory sections, a continued artifact fenced like
    history, and the input under its label, all boundary lines carrying the nonce."""
    language = agent.language if agent.language in INPUT_LABEL else "zh"
    parts = [section.text for section in sections]
    if previous is not None:
        room = max(0, settings.WORKING_MEMORY_MAX_TOKENS - count_tokens(input) - sum(count_tokens(p) for p in parts) - 500)
        artifact = fit_untrusted(previous.output, language=language, nonce=nonce, limit=room)
        parts.append(f"{with_nonce(ARTIFACT_OPEN[language], nonce)}\n{artifact}\n"
                     f"{with_nonce(ARTIFACT_CLOSE[language], nonce)}")
    user_content = "\n\n".join(parts + [f"{with_nonce(INPUT_LABEL[language], nonce)}\n{input}"]) if parts else input
    system = fence_rules(language, nonce)
    if agent.system_prompt:
        system = f"{system}\n\n{agent.system_prompt}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user_content}]


def run_finish(*, run: Run, completion=None, error_code: str = "", stopped_text: str = "") -> Run:
    """Record the outcome once (a run that already finished is left alone) and enqueue
    its memory job after commit. `stopped_text`: what was streamed before the reader went
    away; the run is then recorded as stopped with that text as its output."""
    now = timezone.now()
    if completion is not None and not error_code:
        fields = {
            "status": Run.Status.COMPLETED,
            "output": completion.text,
            "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens,
            "cost": price(completion.model or run.model, completion.prompt_tokens, completion.completion_tokens),
            "error_code": "",
            "finish_reason": completion.finish_reason or "",
        }
    elif stopped_text.strip():
        # No usage report arrives for a cut stream: our own counts, priced the same way.
        prompt_tokens = (run.context or {}).get("prompt_tokens_estimate", 0)
        completion_tokens = count_tokens(stopped_text)
        fields = {
            "status": Run.Status.STOPPED,
            "output": stopped_text,
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "cost": price(run.model, prompt_tokens, completion_tokens),
            "error_code": "",
        }
    else:
        # A failed run keeps no output: its text never reaches memory or a prompt.
        fields = {"status": Run.Status.FAILED, "output": "", "error_code": error_code or "provider_error"}
        if completion is not None:
            fields.update(prompt_tokens=completion.prompt_tokens, completion_tokens=completion.completion_tokens)
    updated = Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING).update(finished_at=now, **fields)
    if updated:
        for name, value in fields.items():
            setattr(run, name, value)
        run.finished_at = now
        enqueue_memory_job(run)
    else:
        run.refresh_from_db()
    return run


def enqueue_memory_job(run: Run) -> bool:
    """Exactly one memory job per run: claimed with a conditional update."""
    claimed = Run.objects.filter(pk=run.pk, memory_enqueued_at__isnull=True).update(memory_enqueued_at=timezone.now())
    if not claimed:
        return False
    run_id = run.pk

    def _enqueue():
        from django_q.tasks import async_task

        async_task("agents.tasks.memory_job", run_id, task_name=f"memory {run_id}", group="memory")

    transaction.on_commit(_enqueue)
    return True


def _call_sync(*, agent, messages) -> tuple[object | None, str]:
    try:
        provider = provider_for_agent(agent)
        return provider.complete(messages, max_tokens=agent.max_output_tokens), ""
    except ProviderError as exc:
        log.warning("run provider %s failed: %s", agent.provider_kind, exc)
        return None, exc.code
    except Exception:
        # Whatever broke (a proxy's HTML page, a client bug), the run must not stay running.
        log.exception("run provider %s failed unexpectedly", agent.provider_kind)
        return None, "provider_error"


def run_sync(*, actor, agent, input: str, thread_id: str | None = None, context: dict | None = None) -> Run:
    if context and context.get("run_id"):
        raise AppError("continue_stream_only", "continuing a previous run's artifact is only on /run/stream", status=400)
    prepared = run_prepare(actor=actor, agent=agent, input=input, thread_id=thread_id)
    with heartbeat.beating(prepared.run.pk):
        completion, error_code = _call_sync(agent=agent, messages=prepared.messages)
    return run_finish(run=prepared.run, completion=completion, error_code=error_code)


def sse(event: str, data: dict) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def run_stream(*, actor, agent, input: str, thread_id: str | None = None, context: dict | None = None) -> Iterator[str]:
    """Validate and record the run now (errors are plain 4xx), then return the SSE events."""
    prepared = run_prepare(
        actor=actor,
        agent=agent,
        input=input,
        thread_id=thread_id,
        continue_run_id=(context or {}).get("run_id") or None,
        streamed=True,
    )
    return _stream_events(agent=agent, prepared=prepared)


def _stream_events(*, agent, prepared: PreparedRun) -> Iterator[str]:
    run = prepared.run
    finished = False
    streamed: list[str] = []
    try:
        yield sse("started", {"run_id": run.pk, "thread_id": run.thread_id})
        completion = None
        try:
            provider = provider_for_agent(agent)
            # closing(): when this generator is closed mid-reply, the provider's stream is
            # closed with it (its upstream connection too), not left to the garbage collector.
            with heartbeat.beating(run.pk), closing(
                provider.stream(prepared.messages, max_tokens=agent.max_output_tokens)
            ) as pieces:
                for kind, value in pieces:
                    if kind == "delta":
                        streamed.append(value)
                        yield sse("delta", {"text": value})
                    else:
                        completion = value
        except ProviderError as exc:
            log.warning("run provider %s failed: %s", agent.provider_kind, exc)
            run_finish(run=run, error_code=exc.code)
            finished = True
            yield sse("error", {"code": exc.code, "run_id": run.pk})
            return
        except Exception:
            log.exception("run provider %s failed unexpectedly", agent.provider_kind)
            run_finish(run=run, error_code="provider_error")
            finished = True
            yield sse("error", {"code": "provider_error", "run_id": run.pk})
            return
        run_finish(run=run, completion=completion, error_code="" if completion else "provider_error")
        finished = True
        yield sse("done", {"run_id": run.pk, "status": run.status, "finish_reason": run.finish_reason})
    finally:
        if not finished:
            # The reader went away (stop button, closed page, lost network) or the server is
            # stopping, mid-stream: keep what was streamed, if anything was.
            run_finish(run=run, error_code="client_disconnected", stopped_text="".join(streamed))
