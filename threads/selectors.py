from datetime import UTC, datetime

from django.db.models import Count, Q

from core import sql
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


#: before any run: the cursor of a summary that covers nothing yet
_BEGINNING = datetime(1, 1, 1, tzinfo=UTC)
_STATE = sql.Columns(Thread, "rolling_summary", "summary_upto_at", "agent", "tenant")
_TURN = sql.Columns(Run, "id", "input", "output", "status", "created_at")


def thread_history(*, thread_id: str, before, limit: int) -> tuple[dict | None, list[Run]]:
    """The thread's summary state (as `thread_cursor`) and its last `limit` finished turns
    created before `before`, oldest first.

    Runs still running are skipped; a turn the summary already covers is never shown
    twice. One query on every run (hand-written, core/sql.py): the thread's row left-joined
    with those turns, so the summary, its cursor and the turns are one snapshot, and a
    thread with no such turn (every thread's first run) costs no second query."""
    if limit <= 0:
        return thread_cursor(thread_id=thread_id), []
    # After the cursor as COALESCE, not "IS NULL OR": both ends of the range are then on
    # the (thread, created_at) index, and SQLite reads the few turns after the cursor
    # instead of every turn of the thread (80 µs at 1,000 turns, against 8).
    rows = sql.fetch(
        f'SELECT {_STATE.select("t")}, {_TURN.select("r")} FROM "{Thread._meta.db_table}" t '
        f'LEFT JOIN "{Run._meta.db_table}" r ON r."thread_id" = t."id" '
        f'AND r."status" IN ({sql.placeholders(len(FINISHED))}) '
        'AND r."created_at" > COALESCE(t."summary_upto_at", %s) AND r."created_at" < %s '
        'WHERE t."id" = %s ORDER BY r."created_at" DESC, r."id" DESC LIMIT %s',
        [*map(str, FINISHED), sql.prep(Thread, "summary_upto_at", _BEGINNING), sql.prep(Run, "created_at", before),
         thread_id, limit])
    if not rows:
        return None, []
    state = dict(zip(_STATE.attnames, _STATE.values(rows[:1])[0]))
    turns = _TURN.instances([row for row in reversed(rows) if row[len(_STATE)] is not None], start=len(_STATE))
    return state, turns


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
