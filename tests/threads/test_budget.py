"""Injected thread tokens have a hard upper bound, however long the conversation or its turns."""

import pytest

from agents.models import Run
from agents.providers import scripted
from core.tokens import count_tokens
from tests.threads.helpers import ZH, say, sent_prompt, thread_section, without_nonce
from core.fencing import with_nonce
from threads.layer import render_thread_section

CJK_PARAGRAPH = "二叉树的前序遍历先访问根结点，再遍历左子树和右子树；哈希表用散列函数把关键字映射到桶中。"
EN_PARAGRAPH = "A binary heap keeps the smallest key at the root; Dijkstra's algorithm relaxes edges in order. "


def long_turn(n: int) -> str:
    """Turns of very different lengths: short, long CJK, long English, mixed and huge."""
    kind = n % 5
    if kind == 0:
        return f"第{n}轮：简答题换两道"
    if kind == 1:
        return f"第{n}轮：" + CJK_PARAGRAPH * 40
    if kind == 2:
        return f"Turn {n}: " + EN_PARAGRAPH * 60
    if kind == 3:
        return f"第{n}轮 mixed：" + (CJK_PARAGRAPH + EN_PARAGRAPH) * 25
    return f"第{n}轮 huge：" + CJK_PARAGRAPH * 100


def long_responder(messages, purpose):
    user = messages[-1]["content"]
    if purpose == "compress":
        # A model that ignores the length limit: the service must still keep the budget.
        return "摘要：" + user[-3000:]
    if purpose != "chat":
        return scripted.default_responder(messages, purpose)
    request = user.rsplit("\n", 1)[-1]
    return long_turn(len(request) + 3)


def _parts(section: str) -> tuple[str, str]:
    inner = thread_section(section)
    summary, _, turns = inner.partition(ZH["recent"])
    return summary.strip(), (ZH["recent"] + turns).strip() if turns else ""


def test_a_200_turn_thread_with_long_cjk_and_english_turns_never_exceeds_the_budget(
    api, agent, memory_jobs, settings
):
    settings.SCRIPTED_RESPONDER = f"{__name__}.long_responder"
    thread_id = None
    sizes = []
    for n in range(200):
        reply = say(api, agent, long_turn(n), memory_jobs, thread_id=thread_id)
        thread_id = reply["thread_id"]
        context = Run.objects.get(pk=reply["run_id"]).context
        sections = [s for s in context["sections"] if s["layer"] == "thread"]
        if n == 0:
            assert not sections
            continue
        [section] = sections
        tokens = count_tokens(section["text"])
        assert tokens == section["tokens"] <= agent.budget_thread
        summary, turns = _parts(section["text"])
        assert count_tokens(summary) <= agent.budget_thread_summary
        assert count_tokens(turns) <= agent.budget_thread_turns
        nonce = context["fence_nonce"]
        assert section["text"].startswith(with_nonce(ZH["open"], nonce))
        assert section["text"].endswith(with_nonce(ZH["close"], nonce))
        assert context["total_tokens"] <= context["total_budget"]
        sizes.append(tokens)
    # The newest turn is always there, however long it was.
    assert "第198轮" in thread_section(sent_prompt())
    # Over the whole conversation the section stays bounded instead of growing.
    assert max(sizes[-100:]) <= agent.budget_thread and min(sizes[-100:]) > 0


@pytest.mark.parametrize("cap", [0, 1, 10, 60, 90, 150, 400, 900, 2000])
def test_the_section_fits_any_grant_and_is_never_left_unfenced(agent, cap):
    turns = [
        Run(pk=f"run_{i}", input=long_turn(i), output=long_turn(i + 1), status=Run.Status.COMPLETED)
        for i in range(1, 4)
    ]
    text, shown = render_thread_section(
        language="zh", summary=CJK_PARAGRAPH * 80, turns=turns, cap=cap, summary_budget=600, turns_budget=1200,
        nonce="kqfwmzrah",
    )
    assert count_tokens(text) <= cap
    if text:
        assert text.startswith(with_nonce(ZH["open"], "kqfwmzrah")) and text.endswith(with_nonce(ZH["close"], "kqfwmzrah"))
        assert without_nonce(text).count(ZH["close"]) == 1
    else:
        assert shown == []


def test_huge_turns_are_cut_at_token_boundaries_and_the_newest_is_kept():
    turns = [
        Run(pk="run_old", input="旧的问题 " + CJK_PARAGRAPH * 200, output=EN_PARAGRAPH * 200,
            status=Run.Status.COMPLETED),
        Run(pk="run_new", input="新的问题 " + EN_PARAGRAPH * 200, output=CJK_PARAGRAPH * 200,
            status=Run.Status.COMPLETED),
    ]
    text, shown = render_thread_section(language="zh", summary="", turns=turns, cap=2000, summary_budget=600,
                                        turns_budget=1200)
    assert shown == ["run_old", "run_new"]
    # The turns' share, plus the frame and our speaker lines around the datamarked text.
    assert count_tokens(text) <= 1200 + count_tokens(f"{ZH['open']}\n{ZH['close']}") + 2
    assert text.count("…") == 4  # both sides of both turns were cut, each marked

    tight, shown = render_thread_section(language="zh", summary="", turns=turns, cap=200, summary_budget=600,
                                         turns_budget=1200)
    assert shown == ["run_new"] and "新的问题" in tight and "旧的问题" not in tight
    assert count_tokens(tight) <= 200


def test_the_thread_section_gets_no_more_than_the_ledger_grants(api, agent, memory_jobs):
    # The fence's two lines are about 90 tokens plus their nonces, 3 to 8 tokens each (a
    # random draw): at 140 an unlucky nonce left no room for a turn, and the recall layer
    # took the space (a flaky failure); 160 squeezes every draw and fits each.
    agent.budget_total = 160
    agent.save()
    first = say(api, agent, CJK_PARAGRAPH * 20, memory_jobs)
    reply = say(api, agent, "继续", memory_jobs, thread_id=first["thread_id"])
    context = Run.objects.get(pk=reply["run_id"]).context
    [section] = context["sections"]
    assert section["budget"] == 160 and section["tokens"] <= 160
    assert "…" in section["text"]  # squeezed: the turn was cut to fit
    assert thread_section(section["text"]), "still fenced when squeezed"
    assert scripted.last_call("chat")
