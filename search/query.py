"""The query both search layers use for a new run.

A short follow-up such as 「简答题换两道」 names nothing it is about; the exam it refers to
is in the thread's last turn. So when the input is short, the query is the input plus
that turn (its input and the head of its output).
"""

from django.conf import settings

from core.tokens import count_tokens, truncate_tokens

LAST_TURN_OUTPUT_TOKENS = 120


def last_turn_text(ctx) -> str:
    from agents.models import Run

    # The thread layer, which reads first, leaves the newest finished turn here when it
    # knows it (None: there is none).
    if "last_turn" in ctx.shared:
        previous = ctx.shared["last_turn"]
    else:
        previous = (
            Run.objects.filter(ctx.actor.owner_q(), thread=ctx.thread, created_at__lt=ctx.run.created_at)
            .exclude(pk=ctx.run.pk)
            .exclude(status=Run.Status.RUNNING)
            .order_by("-created_at")
            .only("input", "output", "status")
            .first()
        )
    if previous is None:
        return ""
    if not previous.has_output:
        return previous.input  # a failed run's output never leaves it
    return f"{previous.input}\n{truncate_tokens(previous.output, LAST_TURN_OUTPUT_TOKENS)}"


def query_for_run(ctx) -> str:
    """Computed once per run and shared by the layers through ctx.shared."""
    if "search_query" not in ctx.shared:
        text = ctx.input
        if count_tokens(text) < settings.SEARCH_SHORT_QUERY_TOKENS:
            last = last_turn_text(ctx)
            if last:
                text = f"{text}\n{last}"
        ctx.shared["search_query"] = truncate_tokens(text, settings.SEARCH_MAX_QUERY_TOKENS, marker="")
    return ctx.shared["search_query"]
