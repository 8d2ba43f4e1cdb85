from django.db.models import Count, F, Q

from core.errors import AppError, NotFound
from agents.models import Run
from threads.models import Thread

FINISHED = Run.FINISHED


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


def threads_for_actor(*, actor, agent, status: str = Thread.Status.ACTIVE):
    """The owner's threads of one agent in one status (active: the list; archived: the
    archive), last activity first, with their run count."""
    return (
        Thread.objects.filter(actor.owner_q(), agent=agent, status=status)
        .annotate(run_count=Count("runs"))
        .order_by("-updated_at", "-created_at", "id")
    )


def thread_runs(*, thread):
    """A thread's messages, oldest first: enough to restore the conversation."""
    return Run.objects.filter(tenant_id=thread.tenant_id, thread=thread).order_by("created_at", "id")


def thread_cursor(*, thread_id: str) -> dict | None:
    """The summary and its cursor as stored now (the base a compression builds on)."""
    return (
        Thread.objects.filter(pk=thread_id)
        .values("rolling_summary", "summary_upto_at", "agent_id", "tenant_id")
        .first()
    )


def thread_history(*, thread_id: str, before, limit: int) -> tuple[dict | None, list[Run]]:
    """The thread's summary state (as `thread_cursor`) and its last `limit` finished turns
    created before `before`, oldest first.

    Runs still running are skipped; a turn the summary already covers is never shown
    twice. The turns come with the thread's summary and cursor in one query (one
    snapshot); only when there is no such turn is the thread read on its own."""
    if limit <= 0:
        return thread_cursor(thread_id=thread_id), []
    after_cursor = Q(thread__summary_upto_at__isnull=True) | Q(created_at__gt=F("thread__summary_upto_at"))
    runs = list(
        Run.objects.filter(after_cursor, thread_id=thread_id, status__in=FINISHED, created_at__lt=before)
        .select_related("thread")
        .only("id", "input", "output", "status", "created_at", "thread__rolling_summary",
              "thread__summary_upto_at", "thread__agent_id", "thread__tenant_id")
        .order_by("-created_at", "-id")[:limit]
    )
    if not runs:
        return thread_cursor(thread_id=thread_id), []
    thread = runs[0].thread
    state = {"rolling_summary": thread.rolling_summary, "summary_upto_at": thread.summary_upto_at,
             "agent_id": thread.agent_id, "tenant_id": thread.tenant_id}
    return state, list(reversed(runs))


def thread_turns_to_fold(*, thread_id: str, summary_upto_at, keep_last: int, limit: int) -> list[Run]:
    """Finished turns after the cursor and older than the last `keep_last` finished ones,
    in created_at order, stopping before the first run still running.

    The cursor may never pass an unfinished run, nor split runs that share one
    created_at (the next fold starts strictly after the cursor).
    """
    after_cursor = Q(thread_id=thread_id)
    if summary_upto_at is not None:
        after_cursor &= Q(created_at__gt=summary_upto_at)
    candidates = Run.objects.filter(after_cursor)
    if keep_last > 0:
        kept = (
            Run.objects.filter(after_cursor, status__in=FINISHED)
            .order_by("-created_at", "-id")
            .values_list("created_at", flat=True)[keep_last - 1:keep_last]
        )
        boundary = next(iter(kept), None)
        if boundary is None:
            return []
        candidates = candidates.filter(created_at__lt=boundary)
    runs = list(
        candidates.only("id", "input", "output", "status", "created_at").order_by("created_at", "id")[:limit + 1]
    )
    fold = []
    for run in runs:
        if run.status not in FINISHED:
            break
        fold.append(run)
    following = runs[len(fold)] if len(fold) < len(runs) else None
    if len(fold) > limit:
        following, fold = fold[limit], fold[:limit]
    while fold and following is not None and fold[-1].created_at == following.created_at:
        fold.pop()
    return fold
