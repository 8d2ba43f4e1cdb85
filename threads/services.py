"""Writes for L1 thread memory: resolving a run's thread, renaming, archiving and
restoring, and the rolling compression that the memory job runs after each run.

An archived thread is read-only: a new run on it is refused (409 `thread_archived`)
until its owner restores it; nothing in it is deleted.

Compression folds finished turns older than the last K into the thread's summary. The
LLM call happens outside any transaction; the result is published with a
compare-and-set on `summary_upto_at`, so two workers folding the same thread can't
overwrite each other: the loser re-reads and recomputes, and a failure leaves the
cursor where it was for the next run's job to catch up. Each compression call fences
its untrusted text (the transcript, the summary so far) as a run fences history: a
fresh nonce per call on the boundary lines, every line of that text datamarked.
"""

import logging

from django.db import transaction
from django.utils import timezone

from core import redline
from core.errors import AppError
from core.fencing import DATAMARK, datamark, fit_untrusted, new_nonce
from core.text import validate_text
from agents.memory_llm import memory_complete, memory_model_available, memory_op_record
from agents.models import MemoryOp, Run
from core.tokens import CHARS_PER_TOKEN_MAX, count_tokens, truncate_tokens
from threads import prompts
from threads.models import Thread
from threads.selectors import thread_cursor, thread_get_for_actor, thread_get_for_run, thread_turns_to_fold

log = logging.getLogger(__name__)

TITLE_CHARS = 40
TITLE_MAX = 200

#: one compression call sees at most this many transcript tokens …
COMPRESS_CHUNK_TOKENS = 2400
#: … of at most this many turns, each cut to this many tokens (input, output; datamarks counted)
COMPRESS_CHUNK_TURNS = 12
COMPRESS_TURN_TOKENS = (300, 500)
#: chunks one job folds before leaving the rest to the next job
COMPRESS_MAX_CHUNKS = 10
#: lost compare-and-set races one job retries before leaving the rest to the next job
COMPRESS_MAX_RACES = 5
#: "shorten it" requests before the summary is hard-truncated
COMPRESS_SHORTEN_TRIES = 1
#: an extractive summary keeps at most this much of each request
EXTRACTIVE_TURN_TOKENS = 120
#: a summary shown to the summariser is cut (its oldest part first) to this many times the
#: summary budget, datamarks counted: the stored summary (at most the budget as text, and
#: about two tokens a line more datamarked) is shown whole …
COMPRESS_SUMMARY_SHOWN = 2
#: … and a model's too-long summary, in the "shorten it" request, cut to this many times
SHORTEN_SUMMARY_SHOWN = 4


def thread_title_from_input(text: str) -> str:
    return " ".join(text.split())[:TITLE_CHARS]


def thread_resolve_for_run(*, actor, agent, thread_id: str | None, input: str) -> Thread:
    """The thread a new run belongs to: a new one, or the caller's own active one (its
    last activity moves to now). An archived thread refuses new runs."""
    now = timezone.now()
    if not thread_id:
        return Thread.objects.create(
            **actor.owner_fields(), agent=agent, title=thread_title_from_input(input), created_at=now, updated_at=now
        )
    thread = thread_get_for_run(actor=actor, agent=agent, thread_id=thread_id)
    # Conditional on still being active: an archive landing at the same moment wins.
    if not Thread.objects.filter(pk=thread.pk, status=Thread.Status.ACTIVE).update(updated_at=now):
        raise AppError("thread_archived", "this thread is archived and read-only; restore it first", status=409)
    thread.updated_at = now
    return thread


def thread_rename(*, actor, thread_id: str, title: str) -> Thread:

    title = " ".join(validate_text(title or "", field="title").split())
    if not title:
        raise AppError("empty_title", "title must not be empty", status=422)
    if len(title) > TITLE_MAX:
        raise AppError("title_too_long", f"title must be at most {TITLE_MAX} characters", status=422)
    thread = thread_get_for_actor(actor=actor, thread_id=thread_id)
    Thread.objects.filter(pk=thread.pk).update(title=title)
    thread.title = title
    return thread


def _thread_set_status(*, actor, thread_id: str, status: str) -> Thread:
    thread = thread_get_for_actor(actor=actor, thread_id=thread_id)
    Thread.objects.filter(pk=thread.pk).update(status=status)
    thread.status = status
    return thread


def thread_archive(*, actor, thread_id: str) -> Thread:
    """Move a thread to the archived list, read-only; nothing is deleted."""
    return _thread_set_status(actor=actor, thread_id=thread_id, status=Thread.Status.ARCHIVED)


def thread_restore(*, actor, thread_id: str) -> Thread:
    """Bring an archived thread back to the list; it accepts new runs again."""
    return _thread_set_status(actor=actor, thread_id=thread_id, status=Thread.Status.ACTIVE)


# --- rolling compression ----------------------------------------------------------------


def thread_compress(*, thread_id: str, run: Run | None = None) -> str:
    """Fold the turns that left the recent window into the rolling summary.

    Returns "up_to_date", "compressed", "failed" (cursor untouched) or "raced" (lost
    too many compare-and-set races; the next job continues). Safe to run twice and
    from several workers at once.
    """
    thread = Thread.objects.select_related("agent").filter(pk=thread_id).first()
    if thread is None:
        return "missing"
    agent = thread.agent
    if run is not None and run.thread_id != thread_id:
        run = None
    outcome = "up_to_date"
    chunks = races = 0
    while chunks < COMPRESS_MAX_CHUNKS:
        state = thread_cursor(thread_id=thread_id)
        if state is None:
            return "missing"
        turns = _chunk(thread_turns_to_fold(
            thread_id=thread_id,
            summary_upto_at=state["summary_upto_at"],
            keep_last=agent.thread_recent_turns,
            limit=COMPRESS_CHUNK_TURNS,
        ))
        if not turns:
            return outcome
        folded = _fold(agent=agent, thread=thread, run=run, summary=state["rolling_summary"], turns=turns)
        if folded is None:
            log.warning("compressing thread %s failed; cursor left at %s", thread_id, state["summary_upto_at"])
            return "failed"
        summary, op = folded
        summary, refused = redline.redact(summary)
        if refused:  # kinds only: the refused text goes nowhere, not even the log
            log.warning("thread %s: summary sentences dropped by the red line (%s)", thread_id, ",".join(refused.kinds))
        with transaction.atomic():
            published = Thread.objects.filter(pk=thread_id, summary_upto_at=state["summary_upto_at"]).update(
                rolling_summary=summary, summary_upto_at=turns[-1].created_at
            )
            if published:
                # Which runs this summary now covers, in the same transaction as the cursor.
                MemoryOp.objects.filter(pk=op.pk).update(covered_runs=[turn.pk for turn in turns])
        if published:
            chunks += 1
            outcome = "compressed"
            continue
        # Someone published first: our base is stale. Discard, re-read, recompute.
        races += 1
        log.info("thread %s: lost a compression race (%d), retrying on the new cursor", thread_id, races)
        if races >= COMPRESS_MAX_RACES:
            return "raced"
    return outcome


def _chunk(turns: list[Run]) -> list[Run]:
    """As many of the oldest turns as fit one compression call (at least one)."""
    input_limit, output_limit = COMPRESS_TURN_TOKENS
    chunk, used = [], 0
    for turn in turns:
        size = _tokens_up_to(turn.input, input_limit) + _tokens_up_to(turn.output, output_limit)
        if chunk and used + size > COMPRESS_CHUNK_TOKENS:
            break
        chunk.append(turn)
        used += size
    # Runs sharing one created_at go together: the next fold starts strictly after it.
    while len(chunk) < len(turns) and turns[len(chunk)].created_at == chunk[-1].created_at:
        chunk.append(turns[len(chunk)])
    return chunk


def _tokens_up_to(text: str, limit: int) -> int:
    """About what `text` takes in a transcript, cut to `limit`: datamarked, as it is shown."""
    return min(count_tokens(datamark(text[: limit * CHARS_PER_TOKEN_MAX])), limit)


def transcript_of(turns: list[Run], *, language: str, nonce: str) -> str:
    """The turns as untrusted data, shaped like the run prompt's recent turns: our speaker
    lines, each followed by its text sanitized, cut and datamarked with the call's nonce;
    a failed turn only a placeholder, a stopped one our line saying so."""
    marks = prompts.fence(language)
    input_limit, output_limit = COMPRESS_TURN_TOKENS

    def untrusted(text: str, limit: int) -> str:
        return fit_untrusted(text, language=language, nonce=nonce, limit=limit) or DATAMARK

    lines = []
    for turn in turns:
        lines += [marks["user"].strip(), untrusted(turn.input, input_limit)]
        if turn.has_output:
            lines += [marks["assistant"].strip(), untrusted(turn.output, output_limit)]
            if turn.status == Run.Status.STOPPED:
                lines.append(marks["stopped"])
        else:
            lines.append(marks["assistant"] + marks["failed"])
    return "\n".join(lines)


def _untrusted(text: str, *, language: str, limit: int, keep: str = "head") -> str:
    # The compression prompt's own labels are in the registry: the sanitizer covers them.
    return prompts.untrusted_text(text, language=language, limit=limit, keep=keep)


def _fenced_summary(text: str, *, language: str, nonce: str, limit: int) -> str:
    """A summary shown to the summariser (written by a model from untrusted text): its
    newest part, fitted like history with the call's nonce."""
    return fit_untrusted(text, language=language, nonce=nonce, limit=limit, keep="tail")


def _fold(*, agent, thread: Thread, run, summary: str, turns: list[Run]) -> tuple[str, MemoryOp] | None:
    """The new summary for `summary` + `turns`, within the summary budget, and the
    MemoryOp of the folding call; None on failure."""
    if not memory_model_available(agent):
        summary = extractive_summary(language=agent.language, summary=summary, turns=turns,
                                     limit=agent.budget_thread_summary)
        # No model call, but the fold is recorded like any other, so which runs a summary
        # covers stays checkable (MemoryOp.covered_runs).
        op = memory_op_record(agent=agent, run=run, thread=thread, kind=MemoryOp.Kind.COMPRESS,
                              provider_kind="extractive")
        return summary, op
    language = agent.language
    limit = agent.budget_thread_summary
    scope = {"agent": agent, "kind": "compress", "run": run, "thread": thread}
    nonce = new_nonce()  # one per model call: only the lines carrying it are boundaries
    messages = prompts.compress_messages(
        language=language,
        nonce=nonce,
        summary=_fenced_summary(summary, language=language, nonce=nonce, limit=limit * COMPRESS_SUMMARY_SHOWN),
        transcript=transcript_of(turns, language=language, nonce=nonce),
        limit=limit,
    )
    result = memory_complete(**scope, messages=messages, max_tokens=limit + 200)
    if result is None:
        return None
    new_summary = result.text.strip()
    fold_op = result.op
    if not new_summary:
        return None  # an empty answer would silently drop the turns: treat it as a failure
    for _ in range(COMPRESS_SHORTEN_TRIES):
        if count_tokens(new_summary) <= limit:
            break
        nonce = new_nonce()
        too_long = _fenced_summary(new_summary, language=language, nonce=nonce, limit=limit * SHORTEN_SUMMARY_SHOWN)
        shorter = memory_complete(
            **scope, messages=prompts.shorten_messages(language=language, nonce=nonce, summary=too_long, limit=limit),
            max_tokens=limit + 100,
        )
        if shorter is None or not shorter.text.strip():
            break
        new_summary = shorter.text.strip()
    if count_tokens(new_summary) > limit:
        # The last resort: keep the most recent part of a rolling summary.
        new_summary = truncate_tokens(new_summary, limit, keep="tail")
    return new_summary, fold_op


# --- the extractive fallback (no model fit for memory work) -----------------------------

def extractive_summary(*, language: str, summary: str, turns: list[Run], limit: int) -> str:
    """A summary without a model: the teacher's requests and decisions, one line each,
    in time order, appended to the previous summary; the oldest lines go first when the
    budget is full. Every sentence passes red line 2 (a refused one becomes a
    placeholder) and the history sanitizer, like anything injected into a prompt."""
    lang = language if language in prompts.FENCE else "zh"
    user = prompts.fence(lang)["user"]
    lines = [_redacted(line, language=lang) for line in (summary or "").splitlines()]
    for turn in turns:
        request = " ".join(_untrusted(turn.input, language=lang, limit=EXTRACTIVE_TURN_TOKENS).split())
        if request:
            lines.append(user + _redacted(request, language=lang))
    lines = [line for line in lines if line.strip()]
    while len(lines) > 1 and count_tokens("\n".join(lines)) > limit:
        lines.pop(0)
    return truncate_tokens("\n".join(lines), limit, keep="tail")


def _redacted(text: str, *, language: str) -> str:
    """`text` with each run of sentences red line 2 refuses replaced by one placeholder."""
    return redline.redact(text, placeholder=prompts.REDACTED[language])[0]