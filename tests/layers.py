"""Layers for tests that configure their own MEMORY_LAYERS."""

from agents.layers import MemoryLayer
from threads.services import thread_resolve_for_run


class ThreadsOnly(MemoryLayer):
    """Resolves a run's thread as the thread layer does, and adds nothing to the prompt
    or the memory job: for tests whose own fake layers replace the real ones."""

    name = "threads-only"

    def resolve_thread(self, *, actor, agent, thread_id, input):
        return thread_resolve_for_run(actor=actor, agent=agent, thread_id=thread_id, input=input)
