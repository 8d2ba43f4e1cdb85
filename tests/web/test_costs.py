"""The costs page: this teacher's run cost plus memory cost (MemoryOp) per day, charted as SVG."""

import datetime
from decimal import Decimal

from django.test import Client
from django.utils import timezone

from agents.actor import Actor
from agents.models import MemoryOp, Run
from threads.models import Thread
from web.charts import cost_chart
from web.selectors import DayCost, costs_per_day, usage_per_agent


def spend(owner, agent, *, days_ago: int, run_cost: str, op_cost: str = "0", tokens=(0, 0), op_tokens=None):
    at = timezone.now() - datetime.timedelta(days=days_ago)
    thread = Thread.objects.create(tenant=agent.tenant, agent=agent, owner=owner, title="t")
    Run.objects.create(tenant=agent.tenant, agent=agent, thread=thread, owner=owner, input="x", status="completed",
                       created_at=at, cost=Decimal(run_cost), prompt_tokens=tokens[0], completion_tokens=tokens[1])
    if op_cost != "0" or op_tokens:
        MemoryOp.objects.create(tenant=agent.tenant, agent=agent, thread=thread, owner=owner, kind="extract",
                                cost=Decimal(op_cost), at=at, input_tokens=(op_tokens or (0, 0))[0],
                                output_tokens=(op_tokens or (0, 0))[1])


def test_costs_per_day_add_runs_and_memory_ops_of_this_teacher_only(teacher, second_teacher, other_teacher, agent,
                                                                    other_agent):
    spend(teacher, agent, days_ago=0, run_cost="0.0100", op_cost="0.0020")
    spend(teacher, agent, days_ago=0, run_cost="0.0050")
    spend(teacher, agent, days_ago=3, run_cost="0.0200", op_cost="0.0040")
    spend(teacher, agent, days_ago=30, run_cost="9")  # outside a 14-day window
    spend(second_teacher, agent, days_ago=0, run_cost="5", op_cost="5")
    spend(other_teacher, other_agent, days_ago=0, run_cost="7", op_cost="7")

    days = costs_per_day(actor=Actor(tenant=teacher.tenant, user=teacher), days=14)
    assert len(days) == 14
    assert days[-1].day == timezone.localdate()
    assert (days[-1].run_cost, days[-1].runs, days[-1].memory_cost, days[-1].memory_ops) == (
        Decimal("0.0150"), 2, Decimal("0.0020"), 1)
    assert days[-4].total == Decimal("0.0240")
    assert sum(day.total for day in days) == Decimal("0.0410")


def test_the_chart_stacks_memory_cost_on_run_cost_with_round_ticks():
    today = datetime.date(2026, 6, 12)
    days = [DayCost(day=today - datetime.timedelta(days=2 - i)) for i in range(3)]
    days[0].run_cost, days[0].memory_cost = Decimal("0.03"), Decimal("0.01")
    days[2].run_cost = Decimal("0.02")
    chart = cost_chart(days)
    assert [label for _, label in chart.ticks] == ["0.00", "0.01", "0.02", "0.03", "0.04"]
    top, bottom = chart.ticks[-1][0], chart.ticks[0][0]
    first = chart.bars[0]
    # 0.03 of 0.04 below, 0.01 on top, reaching the top tick.
    assert first.run_height == round((bottom - top) * 0.75, 2)
    assert first.memory_y == top and first.memory_height == round((bottom - top) * 0.25, 2)
    assert chart.bars[1].run_height == 0 and chart.bars[1].memory_height == 0
    assert [label for _, label in chart.x_labels] == ["6/10", "6/11", "6/12"]
    assert not chart.empty


def test_a_chart_with_no_cost_says_so_and_thins_its_day_labels():
    days = [DayCost(day=datetime.date(2026, 6, 1) + datetime.timedelta(days=i)) for i in range(30)]
    chart = cost_chart(days)
    assert chart.empty
    assert len(chart.bars) == 30 and len(chart.x_labels) <= 7
    assert chart.x_labels[-1][1] == "6/30"


def test_the_costs_page_shows_totals_a_chart_and_the_days_with_cost(teacher, agent):
    spend(teacher, agent, days_ago=1, run_cost="0.0210", op_cost="0.0040")
    client = Client()
    client.force_login(teacher)
    response = client.get("/costs/", {"days": "7"})
    html = response.content.decode()
    assert response.status_code == 200
    assert html.count('class="bar-run"') == 7
    assert '<span class="value" id="total-cost">0.0250</span>' in html
    assert html.split('id="cost-per-day"')[1].split("</table>")[0].count("<tr><td>") == 1
    assert "<svg" in html and "<script" not in html.split("<svg", 1)[1].split("</svg>")[0]
    assert client.get("/costs/", {"days": "1000"}).content.decode().count('class="bar-run"') == 14
    assert client.get("/costs/", {"days": "x"}).status_code == 200


def test_tokens_are_counted_per_day_and_per_agent_for_this_teacher_only(teacher, second_teacher, agent, en_agent):
    spend(teacher, agent, days_ago=0, run_cost="0", tokens=(1000, 200), op_tokens=(300, 40))
    spend(teacher, agent, days_ago=0, run_cost="0", tokens=(500, 100))
    spend(teacher, en_agent, days_ago=2, run_cost="0.5", tokens=(50, 5))
    spend(second_teacher, agent, days_ago=0, run_cost="0", tokens=(99999, 1))
    actor = Actor(tenant=teacher.tenant, user=teacher)
    days = costs_per_day(actor=actor, days=7)
    assert (days[-1].run_tokens, days[-1].memory_tokens, days[-1].total_tokens) == (1800, 340, 2140)
    assert days[-3].run_tokens == 55
    usage = usage_per_agent(actor=actor, days=7)
    assert [(row.name, row.runs, row.run_tokens, row.memory_ops, row.memory_tokens) for row in usage] == [
        ("出题助手", 2, 1800, 1, 340), ("Exam helper", 1, 55, 0, 0)]
    assert usage[1].run_cost == Decimal("0.5")


def test_a_free_model_charts_tokens_and_says_it_costs_nothing(teacher, agent):
    spend(teacher, agent, days_ago=0, run_cost="0", tokens=(1200, 300), op_tokens=(400, 100))
    spend(teacher, agent, days_ago=1, run_cost="0", tokens=(600, 150))
    client = Client()
    client.force_login(teacher)
    html = client.get("/costs/", {"days": "7"}).content.decode()
    assert "本地模型，不产生费用" in html
    assert 'data-metric="tokens"' in html and html.count('class="bar-run"') == 7
    assert '<span class="tokens" id="run-tokens">2,250 token</span>' in html
    assert '<span class="tokens" id="memory-tokens">500 token</span>' in html
    assert "<td>1,500</td>" in html  # today's run tokens in the per-day table
    assert 'id="cost-per-agent"' in html and "<td>出题助手</td>" in html


def test_a_paid_model_charts_money_and_does_not_claim_to_be_free(teacher, agent):
    spend(teacher, agent, days_ago=0, run_cost="0.0300", tokens=(1200, 300))
    client = Client()
    client.force_login(teacher)
    html = client.get("/costs/", {"days": "7"}).content.decode()
    assert "本地模型，不产生费用" not in html and 'data-metric="cost"' in html


def test_a_token_chart_has_whole_number_ticks():
    days = [DayCost(day=datetime.date(2026, 6, 1) + datetime.timedelta(days=i)) for i in range(3)]
    days[0].run_tokens, days[0].memory_tokens = 2500, 500
    days[2].run_tokens = 7
    chart = cost_chart(days, metric="tokens")
    assert [label for _, label in chart.ticks] == ["0", "1000", "2000", "3000", "4000"]
    assert chart.bars[0].run_value == "2,500" and chart.bars[0].memory_value == "500"
    assert chart.bars[0].memory_y == chart.ticks[0][0] - round((chart.ticks[0][0] - chart.ticks[-1][0]) * 0.75, 2)
