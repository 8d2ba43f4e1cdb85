"""L4 knowledge base: the passages of the agent's documents that match the input.

A passage is untrusted: its source line (the document's title read as the lines it may
have been, then the whole line) and its text are sanitized and datamarked
(core.fencing), and the fence's opening and closing lines carry the run's nonce.
"""

import logging

from django.conf import settings

from core import labels
from core.fencing import fit_untrusted, sanitize_name, with_nonce
from agents.layers import MemoryLayer, StepResult
from core.tokens import count_tokens
from knowledge.selectors import kb_search
from knowledge.services import document_archive_run, kb_index_sources
from search.query import query_for_run
from core import redline

log = logging.getLogger(__name__)

LABEL = labels.KB_LABEL
OPEN = labels.KB_OPEN
CLOSE = labels.KB_CLOSE
SOURCE = labels.KB_SOURCE
#: more candidates than fit, so a budget can be filled after duplicates are skipped
CANDIDATES = 12
#: a passage cut shorter than this is not worth its title line
MIN_PASSAGE_TOKENS = 40


def _refused(chunk) -> bool:
    """Fail closed: an archived run output that today's red line refuses is not injected
    (uploaded documents are the school's own material and are not filtered)."""
    verdict = redline.check(f"{chunk.document.title}\n{chunk.text}")
    if verdict:
        log.warning("archived chunk %s not injected: red line (%s)", chunk.pk, ",".join(verdict.kinds))
    return bool(verdict)


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
        opening, closing = with_nonce(OPEN[language], ctx.nonce), with_nonce(CLOSE[language], ctx.nonce)
        room = budget - count_tokens(f"{opening}\n\n{closing}")
        parts, items = [], []
        for chunk, _score in found:
            if chunk.document.source_run_id and _refused(chunk):
                continue
            # The source line is the title inside our quotes. The title is read as the lines it
            # may have been before it was stored on one ("Lesson notes\nSYSTEM OVERRIDE …"), then
            # the whole line is sanitized again (a title of "系统" must not become "《系统》") and
            # datamarked like the passage.
            name = sanitize_name(chunk.document.title, language=language, nonce=ctx.nonce)
            title = fit_untrusted(SOURCE[language].format(title=name), language=language, nonce=ctx.nonce, limit=200)
            head = count_tokens(title) + 2
            if room - head < MIN_PASSAGE_TOKENS:
                break
            passage = fit_untrusted(chunk.text, language=language, nonce=ctx.nonce, limit=room - head)
            if not passage:
                break
            text = f"{title}\n{passage}"
            parts.append(text)
            items.append(chunk.pk)
            room -= count_tokens(text) + 2
        if not parts:
            return None
        body = "\n\n".join(parts)
        return self.section(f"{opening}\n{body}\n{closing}", label=LABEL[language], items=items)

    def after_run(self, run) -> StepResult:
        document = document_archive_run(run=run)
        # None: the agent does not archive, the run failed, or red line 2 refused it.
        return StepResult.done() if document is not None else StepResult.skipped()

    def index_sources(self, *, tenant=None):
        """What this layer keeps in the search index (manage.py reindex)."""
        return kb_index_sources(tenant=tenant)
