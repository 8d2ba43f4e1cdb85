"""Budgets hold with every configured layer full (the lead re-runs this once all layers are merged)."""

import pytest
from django.conf import settings as django_settings

from agents.layers import memory_layers
from agents.models import Run
from core.tokens import count_tokens

TOPIC = "数据结构二叉树遍历复习"
LONG = "二叉树的前序遍历先访问根结点，再遍历左子树和右子树；中序遍历用于二叉搜索树的有序输出。" * 30


@pytest.fixture
def full_memory(api, agent, memory_jobs, settings):
    """Long related history in one thread, in recall, in the knowledge base (and core facts
    when the core layer's API is there)."""
    settings.RECALL_SUMMARY_MODE = "excerpt"
    thread_id = None
    for i in range(6):
        with memory_jobs():
            body = {"thread_id": thread_id} if thread_id else {}
            reply = api.run(agent, f"{TOPIC}第{i}讲：{LONG[:300]} REPLY:{LONG}", **body).json()
        thread_id = reply["thread_id"]
    for i in range(3):
        api.post(f"/api/agents/{agent.pk}/documents", {"title": f"{TOPIC}讲义{i}", "text": LONG * 3})
    for i in range(40):
        api.post(f"/api/agents/{agent.pk}/memory/facts", {"text": f"老师偏好：{TOPIC}的题目要附答案解析，第{i}条。"})
    return thread_id


@pytest.mark.parametrize("total", [10_000, 4500, 1500, 600, 150])
def test_budgets_hold_with_all_layers_full(api, agent, full_memory, total, settings):
    agent.budget_total = total
    # Near-copies of one entry rank one after another and the gate (tested in
    # tests/search/test_gate.py) lets only the best through: here every related entry
    # must pass so that the recall budget really fills.
    agent.recall_min_score = 0.0
    agent.save()
    settings.KB_MIN_SCORE_PERCENT = 0
    reply = api.run(agent, f"再来一份{TOPIC}", thread_id=full_memory).json()
    context = Run.objects.get(pk=reply["run_id"]).context
    sections = context["sections"]
    own = {layer.name: layer.budget(agent) for layer in memory_layers()}

    assert context["total_tokens"] == sum(s["tokens"] for s in sections) <= total
    for section in sections:
        assert count_tokens(section["text"]) == section["tokens"] <= section["budget"] <= own[section["layer"]]

    # Fill priority: once a layer's grant was cut by the total, every lower priority is absent.
    present = {s["layer"]: s for s in sections}
    order = [layer.name for layer in memory_layers()]
    cut = [name for name in order if name in present and present[name]["budget"] < own[name]]
    if cut:
        assert not [name for name in order[order.index(cut[0]) + 1:] if name in present]

    # Prompt order: core, thread, recall, KB, then the input.
    prompt = context["messages"][-1]["content"]
    positions = [prompt.index(s["text"]) for s in sections]
    assert positions == sorted(positions)
    assert [s["layer"] for s in sections] == sorted(present, key=lambda n: next(
        layer.prompt_order for layer in memory_layers() if layer.name == n))
    assert prompt.rstrip().endswith(f"再来一份{TOPIC}")

    if total >= sum(own.values()):
        # Everything fits: the search layers are really full, not trivially small.
        assert present["recall"]["tokens"] >= 0.8 * agent.budget_recall
        assert present["kb"]["tokens"] >= 0.8 * agent.budget_kb


def test_the_configured_layers_include_recall_and_the_knowledge_base_in_priority_order():
    layers = list(django_settings.MEMORY_LAYERS)
    assert layers.index("knowledge.layer.KnowledgeLayer") < layers.index("recall.layer.RecallLayer")
