"""The registry and the ledger, exercised with test layers (the real layers have their own tests)."""

import pytest

from agents import layers
from agents.ledger import ContextLedger, Section
from agents.models import Run
from core.tokens import count_tokens
from tests.threads.helpers import without_nonce

LONG_ZH = "二叉树的遍历包括前序、中序和后序。" * 200
LONG_EN = "Binary search trees keep keys in order. " * 200


class BigCoreLayer(layers.MemoryLayer):
    name = "core"
    prompt_order = 10

    def budget(self, agent):
        return 300

    def read(self, ctx, *, budget):
        return self.section(LONG_ZH, label="[核心记忆]")


class OverrunningThreadLayer(layers.MemoryLayer):
    """Ignores its grant on purpose: the ledger must still cut it."""

    name = "thread"
    prompt_order = 20

    def budget(self, agent):
        return 2000

    def read(self, ctx, *, budget):
        ctx.shared["seen_by_thread"] = True
        return self.section(LONG_EN, label="[本会话前情]")


class RecallLayer(layers.MemoryLayer):
    name = "recall"
    prompt_order = 30

    def budget(self, agent):
        return 800

    def read(self, ctx, *, budget):
        assert ctx.shared.get("seen_by_thread"), "higher-priority layers run first"
        return self.section("相关历史：上周的试卷", label="[相关历史]")


class UnorderedRecallLayer(RecallLayer):
    def read(self, ctx, *, budget):
        return self.section("相关历史：上周的试卷", label="[相关历史]")


THREADS = "tests.layers.ThreadsOnly"
PATHS = [THREADS, f"{__name__}.BigCoreLayer", f"{__name__}.OverrunningThreadLayer", f"{__name__}.RecallLayer"]


def test_the_ledger_grants_at_most_what_is_left():
    ledger = ContextLedger(100)
    assert ledger.grant(60) == 60
    ledger.add(Section(layer="a", label="a", text="x " * 50), budget=60)
    assert ledger.used <= 60
    assert ledger.grant(500) == 100 - ledger.used


def test_the_ledger_cuts_a_section_that_overran_its_grant():
    ledger = ContextLedger(1000)
    section = ledger.add(Section(layer="a", label="a", text=LONG_ZH), budget=120)
    assert section.tokens <= 120
    assert count_tokens(section.text) == section.tokens


@pytest.mark.parametrize("total", [5000, 1500, 400, 50])
def test_sections_never_exceed_their_budgets_or_the_total(api, agent, settings, total):
    settings.MEMORY_LAYERS = PATHS
    agent.budget_total = total
    agent.save()
    run_id = api.run(agent, "出一份试卷").json()["run_id"]
    context = Run.objects.get(pk=run_id).context
    assert context["total_tokens"] <= total
    for section in context["sections"]:
        assert section["tokens"] <= section["budget"]
        assert count_tokens(section["text"]) == section["tokens"]
    assert sum(s["tokens"] for s in context["sections"]) == context["total_tokens"]


def test_lower_priorities_are_cut_first(api, agent, settings):
    settings.MEMORY_LAYERS = PATHS
    agent.budget_total = 350
    agent.save()
    context = Run.objects.get(pk=api.run(agent, "出题").json()["run_id"]).context
    layers_present = [s["layer"] for s in context["sections"]]
    assert layers_present == ["core", "thread"]
    assert context["sections"][0]["tokens"] <= 300


def test_sections_appear_in_prompt_order_before_the_input(api, agent, settings, scripted_provider):
    # The registry's order is fill priority only; the prompt follows each layer's prompt_order.
    settings.MEMORY_LAYERS = [THREADS, f"{__name__}.UnorderedRecallLayer", PATHS[2], PATHS[1]]
    agent.budget_total = 10_000
    agent.save()
    api.run(agent, "出一份数据结构试卷")
    prompt = without_nonce(scripted_provider.last_call()["messages"][-1]["content"])
    assert prompt.index("二叉树") < prompt.index("Binary search") < prompt.index("相关历史") < prompt.index(
        "[用户问题]\n出一份数据结构试卷"
    )


def test_without_memory_sections_the_input_is_sent_as_it_is(api, agent, settings, scripted_provider):
    settings.MEMORY_LAYERS = [THREADS]
    api.run(agent, "出一份数据结构试卷")
    messages = scripted_provider.last_call()["messages"]
    assert messages[0]["role"] == "system"
    assert messages[-1] == {"role": "user", "content": "出一份数据结构试卷"}
