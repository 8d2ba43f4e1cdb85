"""L3 episodic recall: past exchanges related to the current input, fenced as history.

Each entry is our head line and speaker marks, with the recalled text sanitized and
datamarked (core.fencing); the fence's opening and closing lines carry the run's nonce.
"""

import logging

from django.utils import timezone

from core import labels
from core.fencing import fit_untrusted, with_nonce
from agents.layers import MemoryLayer, StepResult
from core.tokens import count_tokens
from recall.models import RecallEntry
from recall.selectors import recall_search
from recall.services import recall_entry_append, recall_index_sources
from search.query import query_for_run
from core import redline

log = logging.getLogger(__name__)

LABEL = labels.RECALL_LABEL
OPEN = labels.RECALL_OPEN
CLOSE = labels.RECALL_CLOSE
TEACHER = labels.RECALL_USER
ASSISTANT = labels.RECALL_ASSISTANT
SUMMARISED = labels.RECALL_SUMMARISED
#: an entry that would get fewer tokens than this is left out rather than cut to nothing
MIN_ENTRY_TOKENS = 24


def render_entry(entry: RecallEntry, *, language: str, room: int, nonce: str = "") -> str:
    when = timezone.localtime(entry.happened_at).strftime("%Y-%m-%d %H:%M")
    head = f"({when}) {TEACHER[language]}"
    prefix = ASSISTANT[language] + (SUMMARISED[language].rstrip() if entry.summary_kind == RecallEntry.SummaryKind.MODEL
                                    else "")
    fixed = count_tokens(head) + count_tokens(prefix) + 4
    text_room = room - fixed
    if text_room <= 0:
        return ""

    def untrusted(text: str, limit: int) -> str:
        return fit_untrusted(text, language=language, nonce=nonce, limit=limit)

    answer = untrusted(entry.summary, text_room)
    said = untrusted(entry.input, max(text_room // 2, text_room - count_tokens(answer)))
    answer = untrusted(entry.summary, text_room - count_tokens(said)) if answer else ""
    if not said:
        return ""
    text = f"{head}\n{said}\n{prefix}\n{answer}" if answer else f"{head}\n{said}"
    while count_tokens(text) > room and "\n" in text:
        text = text.rsplit("\n", 1)[0]  # drop whole lines: every line left keeps its datamark
    return text if count_tokens(text) <= room and "\n" in text else ""


def render_section(found, *, language: str, budget: int, nonce: str = "") -> tuple[str, list[str]]:
    opening, closing = with_nonce(OPEN[language], nonce), with_nonce(CLOSE[language], nonce)
    frame = f"{opening}\n\n{closing}"
    room = budget - count_tokens(frame)
    parts, items = [], []
    for position, (entry, _score) in enumerate(found):
        share = room // (len(found) - position)  # what later entries leave unused carries over
        if share < MIN_ENTRY_TOKENS:
            break
        text = render_entry(entry, language=language, room=share - 1, nonce=nonce)  # -1: the joining newline
        if not text:
            continue
        parts.append(text)
        items.append(entry.run_ref)
        room -= count_tokens(text) + 1
    if not parts:
        return "", []
    return f"{opening}\n" + "\n".join(parts) + f"\n{closing}", items


def _refused(entry: RecallEntry) -> bool:
    """Fail closed: an entry stored before today's red line is not injected."""
    verdict = redline.check(f"{entry.input}\n{entry.summary}")
    if verdict:
        log.warning("recall entry %s not injected: red line (%s)", entry.pk, ",".join(verdict.kinds))
    return bool(verdict)


class RecallLayer(MemoryLayer):
    name = "recall"
    prompt_order = 30
    write_order = 30

    def budget(self, agent) -> int:
        return agent.budget_recall

    def read(self, ctx, *, budget):
        language = ctx.language if ctx.language in LABEL else "zh"
        # Runs the thread section already shows, and this run, are never repeated here.
        exclude = {ctx.run.pk, *ctx.shared.get("thread_run_ids", [])}
        found = recall_search(
            actor=ctx.actor,
            agent=ctx.agent,
            query=query_for_run(ctx),
            limit=ctx.agent.recall_top_k,
            min_score=ctx.agent.recall_min_score,
            exclude_run_ids=exclude,
        )
        found = [(entry, score) for entry, score in found if not _refused(entry)]
        if not found:
            return None
        text, items = render_section(found, language=language, budget=budget, nonce=ctx.nonce)
        if not text:
            return None
        return self.section(text, label=LABEL[language], items=items)

    def after_run(self, run) -> StepResult:
        entry = recall_entry_append(run=run)
        return StepResult.done() if entry is not None else StepResult.skipped("not completed")

    def index_sources(self, *, tenant=None):
        """What this layer keeps in the search index (manage.py reindex)."""
        return recall_index_sources(tenant=tenant)
