"""Reads for the teacher pages that no other app already offers (threads and runs come
from threads.selectors). Every query starts from the actor's school AND owner."""

import datetime
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, Sum
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

    @property
    def total(self) -> Decimal:
        return self.run_cost + self.memory_cost


def _cost_per_day(queryset, date_field: str) -> dict:
    rows = queryset.annotate(day=TruncDate(date_field)).values("day").annotate(cost=Sum("cost"), n=Count("id"))
    return {row["day"]: (row["cost"] or Decimal(0), row["n"]) for row in rows}


def costs_per_day(*, actor, days: int) -> list[DayCost]:
    """This owner's run cost and memory cost (MemoryOp) per local day, oldest first, every day
    of the window present (zeros included) so a chart has no gaps."""
    today = timezone.localdate()
    first = today - datetime.timedelta(days=days - 1)
    since = timezone.make_aware(datetime.datetime.combine(first, datetime.time.min))
    runs = _cost_per_day(Run.objects.filter(actor.owner_q(), created_at__gte=since), "created_at")
    ops = _cost_per_day(MemoryOp.objects.filter(actor.owner_q(), at__gte=since), "at")
    table = []
    for offset in range(days):
        day = first + datetime.timedelta(days=offset)
        run_cost, run_count = runs.get(day, (Decimal(0), 0))
        op_cost, op_count = ops.get(day, (Decimal(0), 0))
        table.append(DayCost(day=day, run_cost=run_cost, runs=run_count, memory_cost=op_cost, memory_ops=op_count))
    return table
