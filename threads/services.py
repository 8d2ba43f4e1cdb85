from django.utils import timezone

from threads.models import Thread
from threads.selectors import thread_get_for_run

TITLE_CHARS = 40


def thread_title_from_input(text: str) -> str:
    return " ".join(text.split())[:TITLE_CHARS]


def thread_resolve_for_run(*, actor, agent, thread_id: str | None, input: str) -> Thread:
    """The thread a new run belongs to: a new one, or the caller's own (re-activated)."""
    now = timezone.now()
    if not thread_id:
        return Thread.objects.create(
            **actor.owner_fields(), agent=agent, title=thread_title_from_input(input), created_at=now, updated_at=now
        )
    thread = thread_get_for_run(actor=actor, agent=agent, thread_id=thread_id)
    Thread.objects.filter(pk=thread.pk).update(status=Thread.Status.ACTIVE, updated_at=now)
    thread.status, thread.updated_at = Thread.Status.ACTIVE, now
    return thread
