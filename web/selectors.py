"""Reads for the teacher pages that no other app already offers (threads and runs come
from threads.selectors). Every query starts from the actor's school AND owner."""

import datetime
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, F, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from agents.models import MemoryOp, Run


@dataclass
class DayCost:
    day: datetime.date
    run_cost: Decimal = Decimal(0)
    runs: int = 0
    memory_cost: Decimal = Decimal(0)
    memory_ops: int = 0
    run_tokens: int = 0
    memory_tokens: int = 0

    @property
    def total(self) -> Decimal:
        return self.run_cost + self.memory_cost

    @property
    def total_tokens(self) -> int:
        return self.run_tokens + self.memory_tokens


@dataclass
class AgentUsage:
    """One agent's share of this owner's usage over the window."""

    agent_id: str
    name: str
    runs: int = 0
    run_tokens: int = 0
    run_cost: Decimal = Decimal(0)
    memory_ops: int = 0
    memory_tokens: int = 0
    memory_cost: Decimal = Decimal(0)

    @property
    def total(self) -> Decimal:
        return self.run_cost + self.memory_cost

    @property
    def total_tokens(self) -> int:
        return self.run_tokens + self.memory_tokens


#: tokens of a run (prompt and reply) and of a memory operation (in and out)
RUN_TOKENS = F("prompt_tokens") + F("completion_tokens")
MEMORY_TOKENS = F("input_tokens") + F("output_tokens")


def _usage(queryset, group, tokens) -> dict:
    rows = queryset.values(*group).annotate(cost=Sum("cost"), n=Count("id"), tokens=Sum(tokens))
    return {tuple(row[g] for g in group): (row["cost"] or Decimal(0), row["n"], row["tokens"] or 0) for row in rows}


def _window(*, actor, days: int):
    """This owner's runs and memory operations since the first local day of the window."""
    today = timezone.localdate()
    first = today - datetime.timedelta(days=days - 1)
    since = timezone.make_aware(datetime.datetime.combine(first, datetime.time.min))
    runs = Run.objects.filter(actor.owner_q(), created_at__gte=since)
    ops = MemoryOp.objects.filter(actor.owner_q(), at__gte=since)
    return first, runs, ops


def costs_per_day(*, actor, days: int) -> list[DayCost]:
    """This owner's run cost and memory cost (MemoryOp) per local day, with their tokens,
    oldest first, every day of the window present (zeros included) so a chart has no gaps."""
    first, runs, ops = _window(actor=actor, days=days)
    runs = _usage(runs.annotate(day=TruncDate("created_at")), ("day",), RUN_TOKENS)
    ops = _usage(ops.annotate(day=TruncDate("at")), ("day",), MEMORY_TOKENS)
    table = []
    for offset in range(days):
        day = first + datetime.timedelta(days=offset)
        run_cost, run_count, run_tokens = runs.get((day,), (Decimal(0), 0, 0))
        op_cost, op_count, op_tokens = ops.get((day,), (Decimal(0), 0, 0))
        table.append(DayCost(day=day, run_cost=run_cost, runs=run_count, memory_cost=op_cost, memory_ops=op_count,
                             run_tokens=run_tokens, memory_tokens=op_tokens))
    return table


def usage_per_agent(*, actor, days: int) -> list[AgentUsage]:
    """This owner's usage per agent over the window, the agents with the most tokens first."""
    _, runs, ops = _window(actor=actor, days=days)
    runs = _usage(runs, ("agent_id", "agent__name"), RUN_TOKENS)
    ops = _usage(ops, ("agent_id", "agent__name"), MEMORY_TOKENS)
    table = []
    for agent_id, name in sorted(set(runs) | set(ops)):
        run_cost, run_count, run_tokens = runs.get((agent_id, name), (Decimal(0), 0, 0))
        op_cost, op_count, op_tokens = ops.get((agent_id, name), (Decimal(0), 0, 0))
        table.append(AgentUsage(agent_id=agent_id, name=name, runs=run_count, run_tokens=run_tokens,
                                run_cost=run_cost, memory_ops=op_count, memory_tokens=op_tokens,
                                memory_cost=op_cost))
    return sorted(table, key=lambda row: (-row.total_tokens, row.name))
