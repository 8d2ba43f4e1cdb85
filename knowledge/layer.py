"""L4 knowledge base: the passages of the agent's documents that match the input."""

from django.conf import settings

from core import labels
from core.fencing import sanitize_untrusted
from agents.layers import MemoryLayer
from core.tokens import count_tokens, truncate_tokens
from knowledge.selectors import kb_search
from knowledge.services import document_archive_run, kb_index_sources
from search.query import query_for_run

LABEL = labels.KB_LABEL
OPEN = labels.KB_OPEN
CLOSE = labels.KB_CLOSE
SOURCE = labels.KB_SOURCE
#: more candidates than fit, so a budget can be filled after duplicates are skipped
CANDIDATES = 12
#: a passage cut shorter than this is not worth its title line
MIN_PASSAGE_TOKENS = 40


class KnowledgeLayer(MemoryLayer):
    name = "kb"
    prompt_order = 40
    write_order = 40

    def budget(self, agent) -> int:
        return agent.budget_kb

    def read(self, ctx, *, budget):
        language = ctx.language if ctx.language in LABEL else "zh"
        found = kb_search(
            agent=ctx.agent,
            query=query_for_run(ctx),
            limit=CANDIDATES,
            min_score=settings.KB_MIN_SCORE_PERCENT / 100,
            exclude_run_ids={ctx.run.pk, *ctx.shared.get("thread_run_ids", [])},
        )
        room = budget - count_tokens(f"{OPEN[language]}\n\n{CLOSE[language]}")
        parts, items = [], []
        for chunk, _score in found:
            title = SOURCE[language].format(title=sanitize_untrusted(chunk.document.title, language=language))
            passage = sanitize_untrusted(chunk.text, language=language)
            head = count_tokens(title) + 2
            if room - head < MIN_PASSAGE_TOKENS:
                break
            passage = truncate_tokens(passage, room - head)
            text = f"{title}\n{passage}"
            parts.append(text)
            items.append(chunk.pk)
            room -= count_tokens(text) + 2
        if not parts:
            return None
        body = "\n\n".join(parts)
        return self.section(f"{OPEN[language]}\n{body}\n{CLOSE[language]}", label=LABEL[language], items=items)

    def after_run(self, run) -> None:
        document_archive_run(run=run)

    def index_sources(self, *, tenant=None):
        """What this layer keeps in the search index (manage.py reindex)."""
        return kb_index_sources(tenant=tenant)
