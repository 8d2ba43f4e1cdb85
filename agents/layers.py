"""The memory layer registry.

Every layer is one small class: `read(...)` returns its prompt section within a token
budget, `after_run(run)` does its write-path step idempotently. settings.MEMORY_LAYERS
lists them in fill priority, the way Django lists middleware; the runner and the
memory job only ever talk to this registry, never to a layer by name.
"""

import functools
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone
from django.utils.module_loading import import_string

from agents.ledger import ContextLedger, Section


@dataclass
class ReadContext:
    """What a layer may look at when it assembles its section for a new run."""

    run: "object"  # agents.models.Run, status running, already saved
    agent: "object"
    actor: "object"  # agents.actor.Actor
    thread: "object"  # threads.models.Thread
    input: str
    language: str
    # Filled by earlier layers for later ones (e.g. runs already shown by the thread
    # section, so recall does not repeat them).
    shared: dict
    # This run's fence nonce (core.fencing): every fence's opening and closing line carries it.
    nonce: str = ""


DONE, SKIPPED, RETRY = "done", "skipped", "retry"
#: outcomes after which the memory job never runs the step again for that run
FINAL_OUTCOMES = (DONE, SKIPPED)


@dataclass(frozen=True)
class StepResult:
    """What one layer's write-path step did for one run.

    done: its work is stored. skipped: there was legitimately nothing to do (a failed
    run, an opt-in that is off). retry: it could not run now (another job holds its
    claim, the model failed): the memory job leaves the run not done and the reconciler
    sends it again at `retry_at`.
    """

    outcome: str
    retry_at: datetime | None = None
    note: str = ""

    @classmethod
    def done(cls, note: str = "") -> "StepResult":
        return cls(DONE, note=note)

    @classmethod
    def skipped(cls, note: str = "") -> "StepResult":
        return cls(SKIPPED, note=note)

    @classmethod
    def retry_later(cls, at: datetime, note: str = "") -> "StepResult":
        return cls(RETRY, retry_at=at, note=note)

    @classmethod
    def retry_soon(cls, note: str = "") -> "StepResult":
        """Try again after MEMORY_STEP_RETRY_SECONDS (a failed model call, an error)."""
        return cls.retry_later(timezone.now() + timedelta(seconds=settings.MEMORY_STEP_RETRY_SECONDS), note=note)

    @property
    def final(self) -> bool:
        return self.outcome in FINAL_OUTCOMES


class MemoryLayer:
    #: short name, shown on /api/runs/{id}/context
    name = "layer"
    #: where the section sits in the prompt (core 10, thread 20, recall 30, KB 40)
    prompt_order = 50
    #: when after_run runs in the memory job (thread 10, core 20, recall 30, KB 40)
    write_order = 50

    def budget(self, agent) -> int:
        """This layer's own token budget for `agent`."""
        return 0

    def read(self, ctx: ReadContext, *, budget: int) -> Section | None:
        return None

    def resolve_thread(self, *, actor, agent, thread_id: str | None, input: str):
        """The thread a new run belongs to, or None when this layer does not keep threads.
        Called inside the run's creating transaction."""
        return None

    def after_run(self, run) -> StepResult | None:
        """The write-path step. Must be idempotent: the memory queue delivers at least once,
        and a step may be re-run after a crash. Returns a StepResult; None means done.
        `run.memory_lease_token` names the job's lease: a claim made under it lives as
        long as the lease (agents.outbox)."""
        return None

    def section(self, text: str, *, label: str, items=None) -> Section:
        return Section(layer=self.name, label=label, text=text, prompt_order=self.prompt_order, items=items or [])


@functools.lru_cache(maxsize=8)
def _load(paths: tuple[str, ...]) -> tuple[MemoryLayer, ...]:
    return tuple(import_string(path)() for path in paths)


def memory_layers() -> tuple[MemoryLayer, ...]:
    """The configured layers, in fill priority."""
    return _load(tuple(settings.MEMORY_LAYERS))


def assemble_context(ctx: ReadContext) -> ContextLedger:
    ledger = ContextLedger(ctx.agent.budget_total)
    for layer in memory_layers():
        if ledger.remaining <= 0:
            break
        budget = ledger.grant(layer.budget(ctx.agent))
        if budget <= 0:
            continue
        ledger.add(layer.read(ctx, budget=budget), budget=budget)
    return ledger


def resolve_thread(*, actor, agent, thread_id: str | None, input: str):
    """The thread of a new run, from the first layer that keeps threads."""
    for layer in memory_layers():
        thread = layer.resolve_thread(actor=actor, agent=agent, thread_id=thread_id, input=input)
        if thread is not None:
            return thread
    raise ImproperlyConfigured("no layer in MEMORY_LAYERS resolves threads (threads.layer.ThreadLayer)")


def layers_in_write_order() -> list[MemoryLayer]:
    return sorted(memory_layers(), key=lambda layer: layer.write_order)
