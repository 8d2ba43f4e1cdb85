"""agents.memory_llm: what a memory call gives back to the layers that store it."""

import pytest

from agents.memory_llm import memory_complete
from agents.providers import scripted
from core.labels import DATAMARK


@pytest.fixture(autouse=True)
def fresh_double():
    scripted.reset()
    yield
    scripted.reset()


def test_datamarks_a_model_copies_from_the_fence_are_not_given_back(agent):
    scripted.queue_replies(f"{DATAMARK}出了一份数据结构试卷\n{DATAMARK}简答题换成两道", purpose="compress")
    result = memory_complete(agent=agent, kind="compress", messages=[{"role": "user", "content": "…"}])
    assert result.text == "出了一份数据结构试卷\n简答题换成两道"
    assert result.op.kind == "compress"
