"""L3 episodic recall: past exchanges related to the current input, fenced as history."""

from django.utils import timezone

from core import labels
from core.fencing import sanitize_untrusted
from agents.layers import MemoryLayer
from core.tokens import count_tokens, truncate_tokens
from recall.models import RecallEntry
from recall.selectors import recall_search
from recall.services import recall_entry_append, recall_index_sources
from search.query import query_for_run

LABEL = labels.RECALL_LABEL
OPEN = labels.RECALL_OPEN
CLOSE = labels.RECALL_CLOSE
TEACHER = labels.RECALL_USER
ASSISTANT = labels.RECALL_ASSISTANT
SUMMARISED = labels.RECALL_SUMMARISED
#: an entry that would get fewer tokens than this is left out rather than cut to nothing
MIN_ENTRY_TOKENS = 24


def render_entry(entry: RecallEntry, *, language: str, room: int) -> str:
    when = timezone.localtime(entry.happened_at).strftime("%Y-%m-%d %H:%M")
    head = f"({when}) {TEACHER[language]} "
    said = sanitize_untrusted(entry.input, language=language)
    answer = sanitize_untrusted(entry.summary, language=language)
    prefix = ASSISTANT[language] + (SUMMARISED[language] if entry.summary_kind == RecallEntry.SummaryKind.MODEL else " ")
    fixed = count_tokens(head) + count_tokens(prefix) + 2
    text_room = room - fixed
    if text_room <= 0:
        return ""
    said = truncate_tokens(said, max(text_room // 2, text_room - count_tokens(answer)))
    answer = truncate_tokens(answer, text_room - count_tokens(said)) if answer else ""
    text = f"{head}{said}\n{prefix}{answer}" if answer else f"{head}{said}"
    return text if count_tokens(text) <= room else truncate_tokens(text, room)


def render_section(found, *, language: str, budget: int) -> tuple[str, list[str]]:
    frame = f"{OPEN[language]}\n\n{CLOSE[language]}"
    room = budget - count_tokens(frame)
    parts, items = [], []
    for position, (entry, _score) in enumerate(found):
        share = room // (len(found) - position)  # what later entries leave unused carries over
        if share < MIN_ENTRY_TOKENS:
            break
        text = render_entry(entry, language=language, room=share - 1)  # the newline that joins it
        if not text:
            continue
        parts.append(text)
        items.append(entry.run_ref)
        room -= count_tokens(text) + 1
    if not parts:
        return "", []
    return f"{OPEN[language]}\n" + "\n".join(parts) + f"\n{CLOSE[language]}", items


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
        if not found:
            return None
        text, items = render_section(found, language=language, budget=budget)
        if not text:
            return None
        return self.section(text, label=LABEL[language], items=items)

    def after_run(self, run) -> None:
        recall_entry_append(run=run)

    def index_sources(self, *, tenant=None):
        """What this layer keeps in the search index (manage.py reindex)."""
        return recall_index_sources(tenant=tenant)
