from agents.errors import AppError, NotFound
from threads.models import Thread


def thread_get_for_actor(*, actor, thread_id: str) -> Thread:
    """A thread of this school and owner; anything else is indistinguishable from none."""
    thread = Thread.objects.filter(actor.owner_q(), pk=thread_id).select_related("agent").first()
    if thread is None:
        raise NotFound("thread")
    return thread


def thread_get_for_run(*, actor, agent, thread_id: str) -> Thread:
    """The thread a new run joins: same school, agent and owner, else 400 thread_mismatch.

    Another school's or another owner's thread answers exactly like a missing one.
    """
    thread = Thread.objects.filter(actor.owner_q(), pk=thread_id, agent=agent).first()
    if thread is None:
        raise AppError("thread_mismatch", "thread_id does not belong to this agent", status=400)
    return thread
