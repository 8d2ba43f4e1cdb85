"""A model that copies the fence's datamarks into its summary: the summary is stored
without them."""

from agents.providers import scripted
from core.fencing import DATAMARK
from tests.threads.helpers import conversation
from threads.models import Thread


def copying_responder(messages, purpose):
    """Compression that copies the fenced lines as they were shown, datamarks and all."""
    if purpose != "compress":
        return scripted.default_responder(messages, purpose)
    return "\n".join(line for line in messages[-1]["content"].splitlines() if line.startswith(DATAMARK))


def test_a_summary_copied_with_datamarks_is_stored_without_them(api, agent, memory_jobs, settings):
    settings.SCRIPTED_RESPONDER = "tests.threads.test_compression_datamarks.copying_responder"
    replies = conversation(api, agent, ["t1 出试卷", "t2 加选择题", "t3 改难度", "t4 要答案", "t5 排版"], memory_jobs)
    summary = Thread.objects.get(pk=replies[-1]["thread_id"]).rolling_summary
    assert "t1 出试卷" in summary and "t3 改难度" in summary
    assert DATAMARK not in summary
