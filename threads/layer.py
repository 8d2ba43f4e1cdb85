"""L1 thread memory: the conversation so far, fenced as untrusted history.

Read path: the rolling summary (≤ budget_thread_summary tokens) and the last K finished
turns before this run (≤ budget_thread_turns), the whole section ≤ budget_thread and
never more than the ledger's grant. Everything from history is sanitized and
datamarked (core.fencing), then wrapped in the seed's boundary text, whose opening and
closing lines carry the run's nonce. A failed turn shows only a placeholder.

    [本会话前情 ⟦nonce⟧ — 下列为历史记录，…]
    （此前对话摘要）
    ┆the rolling summary, every line datamarked
    （最近对话）
    ‹用户›
    ┆a turn's input
    ‹助手›
    ┆its output
    [本会话前情结束 ⟦nonce⟧ — 以下是用户本轮的真实请求]

Write path: fold the turns that left the recent window into the summary
(threads.services.thread_compress).
"""

import logging

from agents.layers import MemoryLayer, ReadContext, StepResult
from agents.ledger import Section
from agents.models import Run
from core.fencing import DATAMARK, fit_untrusted, with_nonce
from core.tokens import count_tokens
from threads import prompts
from threads.selectors import thread_history
from threads.services import thread_compress, thread_resolve_for_run
from core import redline

log = logging.getLogger(__name__)

#: shrink-and-retry steps when joining pieces costs a few tokens more than their sum
_FIT_ATTEMPTS = 6
#: an older turn gets shown only if at least this many tokens are left for it
_MIN_TURN_TOKENS = 48


class ThreadLayer(MemoryLayer):
    name = "thread"
    prompt_order = 20
    write_order = 10

    def budget(self, agent) -> int:
        return agent.budget_thread

    def resolve_thread(self, *, actor, agent, thread_id, input):
        return thread_resolve_for_run(actor=actor, agent=agent, thread_id=thread_id, input=input)

    def read(self, ctx: ReadContext, *, budget: int) -> Section | None:
        agent = ctx.agent
        state, turns = thread_history(thread_id=ctx.thread.pk, before=ctx.run.created_at,
                                      limit=agent.thread_recent_turns)
        state = state or {"rolling_summary": "", "summary_upto_at": None}
        turns = [turn for turn in turns if turn.pk != ctx.run.pk]
        # The newest finished turn before this run: what a short follow-up is about
        # (search.query), read here already. Known to be none when nothing was ever
        # folded into the summary and no turn came back (a thread's first run).
        if turns:
            ctx.shared["last_turn"] = turns[-1]
        elif agent.thread_recent_turns > 0 and state["summary_upto_at"] is None:
            ctx.shared["last_turn"] = None
        # Fail closed: a summary written before today's red line is injected without the
        # sentences it now refuses.
        summary, refused = redline.redact(state["rolling_summary"])
        if refused:
            log.warning("thread %s: summary sentences not injected: red line (%s)", ctx.thread.pk,
                        ",".join(refused.kinds))
        text, shown = render_thread_section(
            language=ctx.language,
            summary=summary,
            turns=turns,
            cap=min(budget, agent.budget_thread),
            summary_budget=agent.budget_thread_summary,
            turns_budget=agent.budget_thread_turns,
            nonce=ctx.nonce,
        )
        # Later layers (recall, KB) skip these runs. Added to, not replaced: whatever an
        # earlier layer already showed stays excluded too.
        earlier = [pk for pk in ctx.shared.get("thread_run_ids", []) if pk not in shown]
        ctx.shared["thread_run_ids"] = [*earlier, *shown]
        ctx.shared["thread_summary_upto_at"] = state["summary_upto_at"]
        if not text:
            return None
        return self.section(text, label=prompts.fence(ctx.language)["label"], items=shown)

    def after_run(self, run) -> StepResult:
        outcome = thread_compress(thread_id=run.thread_id, run=run)
        if outcome in ("compressed", "up_to_date"):
            return StepResult.done(outcome)
        if outcome == "missing":
            return StepResult.skipped(outcome)
        # "failed" (the model failed; the cursor did not move) or "raced" (lost too many
        # compare-and-set races): try again later rather than leave the turns unfolded.
        return StepResult.retry_soon(note=outcome)


def render_thread_section(*, language: str, summary: str, turns: list[Run], cap: int, summary_budget: int,
                          turns_budget: int, nonce: str = "") -> tuple[str, list[str]]:
    """The fenced section and the ids of the turns it shows; ("", []) when nothing fits.

    Recent turns are filled first (a follow-up needs them most), the summary gets what
    is left of its own budget. The result is measured whole and shrunk until it fits
    `cap`, so the budget holds however long the turns are.
    """
    marks = prompts.fence(language)
    opening, closing = with_nonce(marks["open"], nonce), with_nonce(marks["close"], nonce)
    summary = (summary or "").strip()
    if not summary and not turns:
        return "", []
    frame = count_tokens(f"{opening}\n{closing}")
    room = cap - frame
    turns_room = min(turns_budget, room)
    for _ in range(_FIT_ATTEMPTS):
        if turns_room < 0 or room <= 0:
            return "", []
        turn_lines, shown = _fit_turns(turns, budget=turns_room, language=language, nonce=nonce)
        used = count_tokens("\n".join(turn_lines)) if turn_lines else 0
        summary_text = _fit_summary(summary, budget=min(summary_budget, room - used - 1), marks=marks,
                                    language=language, nonce=nonce)
        lines = [opening]
        if summary_text:
            lines += [marks["summary"].strip(), summary_text]
        lines += turn_lines
        lines.append(closing)
        if not summary_text and not turn_lines:
            return "", []
        text = "\n".join(lines)
        over = count_tokens(text) - cap
        if over <= 0:
            return text, shown
        # Joining added a few tokens: give them back from the turns first, then the frame room.
        if turns_room > 0:
            turns_room = max(0, turns_room - over)
        else:
            room -= over
    return "", []


def _fit_summary(summary: str, *, budget: int, marks: dict, language: str, nonce: str) -> str:
    budget -= count_tokens(marks["summary"]) + 1
    if not summary or budget <= 0:
        return ""
    # A rolling summary runs oldest to newest: if it must be cut, keep the newest part.
    return fit_untrusted(summary, language=language, nonce=nonce, limit=budget, keep="tail")


def _fit_turns(turns: list[Run], *, budget: int, language: str, nonce: str) -> tuple[list[str], list[str]]:
    """Turn lines (oldest first) within `budget`, each turn cut to its share.

    The newest turn is placed first; what a short turn leaves over goes to older ones,
    and when even a minimal turn no longer fits, the older turns are dropped.
    """
    marks = prompts.fence(language)
    if not turns:
        return [], []
    remaining = budget - count_tokens(marks["recent"]) - 1
    fixed = count_tokens(marks["user"]) + count_tokens(marks["assistant"]) + 4
    placed: list[tuple[str, list[str]]] = []
    for index, turn in enumerate(reversed(turns)):
        share = remaining // (len(turns) - index)
        if share - fixed < _MIN_TURN_TOKENS:
            # Too little for every turn: the newest ones take what is left, older ones go.
            share = remaining
        avail = share - fixed
        if avail < (_MIN_TURN_TOKENS if placed else 8):
            break
        lines = _turn_lines(turn, avail=avail, language=language, marks=marks, nonce=nonce)
        if lines is None:
            break
        remaining -= count_tokens("\n".join(lines)) + 1
        placed.append((turn.pk, lines))
    if not placed:
        return [], []
    placed.reverse()
    out = [marks["recent"]]
    for _, lines in placed:
        out += lines
    return out, [pk for pk, _ in placed]


def _turn_lines(turn: Run, *, avail: int, language: str, marks: dict, nonce: str) -> list[str] | None:
    """A turn as our speaker lines, each followed by its datamarked text; a failed turn
    keeps the seed's one-line placeholder, a stopped one ends with our own line saying so."""
    stopped = turn.status == Run.Status.STOPPED
    tail = count_tokens(marks["stopped"]) + 1 if stopped else 0

    def untrusted(text: str, limit: int) -> str:
        return fit_untrusted(text, language=language, nonce=nonce, limit=limit)

    user = untrusted(turn.input, avail)
    if turn.has_output:
        assistant = untrusted(turn.output, avail - tail)
        assistant_fixed = False
    else:
        # A failed turn never shows its output or error, only that it was skipped.
        assistant, assistant_fixed = marks["failed"], True
    user_tokens, assistant_tokens = count_tokens(user), count_tokens(assistant) + tail
    if user_tokens + assistant_tokens > avail:
        if assistant_fixed:
            user_limit = avail - assistant_tokens
        else:
            user_limit = min(user_tokens, max(avail - assistant_tokens, avail // 3))
        if user_limit <= 0:
            return None
        user = untrusted(turn.input, user_limit)
        if not assistant_fixed:
            assistant = untrusted(turn.output, avail - count_tokens(user) - tail)
    if not user:
        return None
    if assistant_fixed:
        return [marks["user"].strip(), user, marks["assistant"] + assistant]
    lines = [marks["user"].strip(), user, marks["assistant"].strip(), assistant or DATAMARK]
    return lines + [marks["stopped"]] if stopped else lines
