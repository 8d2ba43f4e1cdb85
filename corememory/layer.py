"""L2 core memory as a layer: confirmed facts first in the prompt; candidates after a run."""

import functools
import logging

from core import labels
from core.fencing import sanitize_untrusted
from agents.layers import MemoryLayer, ReadContext, StepResult
from core.tokens import count_tokens
from core import redline
from corememory.selectors import facts_for_injection
from corememory.services import candidates_extract_for_run, facts_touch

log = logging.getLogger(__name__)

LABEL = labels.CORE_LABEL
INTRO = labels.CORE_INTRO


@functools.lru_cache(maxsize=4096)
def _fact_line(text: str, language: str) -> str:
    """A fact as its prompt line, sanitized and on one line. sanitize_untrusted is a pure
    function of the text (no nonce here), so a fact injected run after run is cleaned once."""
    return "- " + " ".join(sanitize_untrusted(text, language=language).split())


class CoreLayer(MemoryLayer):
    name = "core"
    prompt_order = 10
    write_order = 20

    def budget(self, agent) -> int:
        return agent.budget_core

    def read(self, ctx: ReadContext, *, budget: int):
        language = ctx.language if ctx.language in LABEL else "zh"
        head = f"{LABEL[language]}\n{INTRO[language]}"
        lines, ids = [head], []
        used = count_tokens(head)
        for fact_id, text in facts_for_injection(actor=ctx.actor, agent=ctx.agent):
            verdict = redline.recheck(text)
            if verdict:
                # Confirmed before the filter knew better (or edited in the database):
                # never injected. The kind and id are logged, never the text.
                log.warning("core fact %s not injected: red line 2 (%s)", fact_id, ",".join(verdict.kinds))
                continue
            line = _fact_line(text, language)
            cost = count_tokens("\n" + line)
            if used + cost > budget:
                continue  # a shorter, less recently used fact may still fit
            lines.append(line)
            ids.append(fact_id)
            used += cost
        # Token counts of pieces and of the joined text can differ by a token or two.
        while ids and count_tokens("\n".join(lines)) > budget:
            lines.pop()
            ids.pop()
        if not ids:
            return None
        facts_touch(fact_ids=ids)
        return self.section("\n".join(lines), label=LABEL[language], items=ids)

    def after_run(self, run) -> StepResult:
        return candidates_extract_for_run(run=run)
