"""A server-rendered SVG bar chart (no chart library, no CDN: the machines are offline).

Only geometry is computed here; templates/web/cost_chart.html draws it, so every label
goes through the template engine (escaped, translatable)."""

import math
from dataclasses import dataclass, field

WIDTH, HEIGHT = 640, 260
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 64, 12, 14, 30
MAX_X_LABELS = 7
TICKS = 4


@dataclass
class Bar:
    label: str
    x: float
    width: float
    run_y: float
    run_height: float
    memory_y: float
    memory_height: float
    run_value: str
    memory_value: str


@dataclass
class Chart:
    width: int = WIDTH
    height: int = HEIGHT
    plot_left: int = PAD_LEFT
    plot_right: int = WIDTH - PAD_RIGHT
    plot_bottom: int = HEIGHT - PAD_BOTTOM
    bars: list = field(default_factory=list)
    ticks: list = field(default_factory=list)  # (y, label)
    x_labels: list = field(default_factory=list)  # (x, label)
    empty: bool = True
    #: what the bars measure: "cost" (money) or "tokens"
    metric: str = "cost"


def _nice_step(raw: float) -> float:
    exponent = math.floor(math.log10(raw))
    for mantissa in (1, 2, 2.5, 5, 10):
        if raw <= mantissa * 10**exponent * (1 + 1e-9):
            return mantissa * 10**exponent
    return 10 ** (exponent + 1)


def _decimals(step: float) -> int:
    decimals = max(0, -math.floor(math.log10(step)))
    if round(step / 10 ** math.floor(math.log10(step)), 6) == 2.5:
        decimals += 1
    return decimals


#: per metric: the day's (run, memory) values, and how a value is written in a tooltip
METRICS = {
    "cost": (lambda day: (float(day.run_cost), float(day.memory_cost)), lambda value: f"{value:.4f}"),
    "tokens": (lambda day: (float(day.run_tokens), float(day.memory_tokens)), lambda value: f"{value:,.0f}"),
}


def cost_chart(days, *, metric: str = "cost") -> Chart:
    """Stacked bars per day: the runs' share below, memory work (MemoryOp) on top, in money
    or, when everything was free (a local model), in tokens."""
    values, written = METRICS[metric]
    chart = Chart(metric=metric)
    if not days:
        return chart
    top = max(sum(values(day)) for day in days)
    chart.empty = top <= 0
    step = _nice_step(top / TICKS) if top > 0 else 1.0
    if metric == "tokens":
        step = max(1.0, math.ceil(step))
    y_max = step * TICKS
    decimals = _decimals(step) if top > 0 and metric == "cost" else 0
    plot_height = chart.plot_bottom - PAD_TOP
    plot_width = chart.plot_right - chart.plot_left

    def y_of(value: float) -> float:
        return round(chart.plot_bottom - value / y_max * plot_height, 2)

    chart.ticks = [(y_of(step * i), f"{step * i:.{decimals}f}") for i in range(TICKS + 1)]
    slot = plot_width / len(days)
    every = max(1, math.ceil(len(days) / MAX_X_LABELS))
    for index, day in enumerate(days):
        x = chart.plot_left + slot * index
        label = f"{day.day.month}/{day.day.day}"
        run_value, memory_value = values(day)
        run_top = y_of(run_value)
        total_top = y_of(run_value + memory_value)
        chart.bars.append(
            Bar(
                label=label,
                x=round(x + slot * 0.15, 2),
                width=round(slot * 0.7, 2),
                run_y=run_top,
                run_height=round(chart.plot_bottom - run_top, 2),
                memory_y=total_top,
                memory_height=round(run_top - total_top, 2),
                run_value=written(run_value),
                memory_value=written(memory_value),
            )
        )
        if (len(days) - 1 - index) % every == 0:
            chart.x_labels.append((round(x + slot / 2, 2), label))
    return chart
