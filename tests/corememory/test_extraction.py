"""After a run, the memory job proposes candidate facts: never a confirmed one, never
sensitive data, never twice for the same run."""

import io
import logging

import pytest
from django.core.management import call_command

from agents.models import MemoryOp, Run
from agents.providers.base import ProviderError
from agents.tasks import memory_job
from corememory import services
from corememory.models import CoreCandidate, CoreExtraction, CoreFact
from tests.core.redline_samples import generated_id_numbers

PREFERENCE = "我教高二，出题偏好选择题多一些"


def extract_calls(scripted_provider):
    return [c for c in scripted_provider.calls if c["purpose"] == "extract"]


def test_an_exchange_with_a_preference_yields_a_pending_candidate_and_no_fact(
        teacher_api, teacher, agent, memory_jobs, extract_replies, scripted_provider):
    extract_replies([{"fact": "教高二", "confidence": 0.9}, {"fact": "出题偏好选择题多一些", "confidence": 0.8}])
    with memory_jobs():
        run_id = teacher_api.run(agent, PREFERENCE).json()["run_id"]

    candidates = list(CoreCandidate.objects.order_by("-confidence"))
    assert [(c.text, c.confidence) for c in candidates] == [("教高二", 0.9), ("出题偏好选择题多一些", 0.8)]
    assert {(c.owner_id, c.end_user, c.agent_id, c.source_run_id) for c in candidates} == {
        (teacher.pk, "", agent.pk, run_id)}
    assert not CoreFact.objects.exists()
    # The exchange was sent to the model, fenced, with the teacher's words in it.
    prompt = extract_calls(scripted_provider)[0]["messages"][-1]["content"]
    assert PREFERENCE in prompt and prompt.startswith("[对话记录")
    op = MemoryOp.objects.get(kind="extract")
    assert (op.run_id, op.status, op.rejected_count) == (run_id, "ok", 0)


@pytest.mark.parametrize("answer", ["NONE", "none", "无", "```\nNONE\n```", "没有值得记住的内容。"])
def test_none_yields_nothing(teacher_api, agent, memory_jobs, extract_replies, answer):
    extract_replies(answer)
    with memory_jobs():
        run_id = teacher_api.run(agent, "出一份数据结构试卷").json()["run_id"]
    assert not CoreCandidate.objects.exists() and not CoreFact.objects.exists()
    assert CoreExtraction.objects.get(run_id=run_id).outcome == "none"
    assert MemoryOp.objects.get(kind="extract").status == "ok"


def test_the_extraction_prompt_carries_red_line_one_in_the_agents_language(
        teacher_api, agent, en_agent, memory_jobs, scripted_provider):
    with memory_jobs():
        teacher_api.run(agent, PREFERENCE)
        teacher_api.run(en_agent, "I teach grade 11 and prefer multiple-choice questions")
    zh, en = (call["messages"][0]["content"] for call in extract_calls(scripted_provider))
    for word in ("身份证件号码", "成绩、分数或排名", "健康状况", "家庭情况", "NONE", "JSON"):
        assert word in zh
    for word in ("identity document numbers", "grades, scores or rankings", "health conditions",
                 "family circumstances", "NONE", "JSON"):
        assert word in en


def test_a_failed_run_is_not_mined(teacher_api, agent, memory_jobs, scripted_provider):
    scripted_provider.queue_replies(ProviderError("provider_error"))
    with memory_jobs():
        response = teacher_api.run(agent, PREFERENCE)
    assert response.json()["status"] == "failed"
    assert extract_calls(scripted_provider) == []
    assert not CoreCandidate.objects.exists()


def test_a_retried_job_does_not_extract_twice(teacher_api, agent, memory_jobs, extract_replies, scripted_provider):
    extract_replies([{"fact": "教高二", "confidence": 0.9}], [{"fact": "别的事实", "confidence": 0.9}])
    with memory_jobs():
        run_id = teacher_api.run(agent, PREFERENCE).json()["run_id"]
    assert memory_job(run_id) == "done"
    assert len(extract_calls(scripted_provider)) == 1
    assert list(CoreCandidate.objects.values_list("text", flat=True)) == ["教高二"]
    assert MemoryOp.objects.filter(kind="extract").count() == 1


def test_a_claim_left_by_a_dead_worker_is_taken_again_after_the_job_timeout(
        teacher_api, agent, extract_replies, settings):
    from datetime import timedelta

    from django.utils import timezone

    run_id = teacher_api.run(agent, PREFERENCE).json()["run_id"]  # no memory job yet
    CoreExtraction.objects.create(run_id=run_id, claimed_at=timezone.now())
    assert services.candidates_extract_for_run(run=Run.objects.get(pk=run_id)).note == "claimed"
    CoreExtraction.objects.filter(run_id=run_id).update(
        claimed_at=timezone.now() - timedelta(seconds=settings.Q_CLUSTER["timeout"] + 1))
    extract_replies([{"fact": "教高二", "confidence": 0.9}])
    assert services.candidates_extract_for_run(run=Run.objects.get(pk=run_id)).note == "proposed"
    assert CoreCandidate.objects.count() == 1


def test_an_unparsable_answer_is_a_failed_memory_op_not_a_crash(teacher_api, agent, memory_jobs, extract_replies):
    extract_replies("The teacher seems to like things.")
    with memory_jobs():
        run_id = teacher_api.run(agent, PREFERENCE).json()["run_id"]
    op = MemoryOp.objects.get(kind="extract")
    assert (op.status, op.error_code) == ("failed", "unparsable")
    assert CoreExtraction.objects.get(run_id=run_id).outcome == "unparsable"
    assert Run.objects.get(pk=run_id).memory_done_at is not None
    assert not CoreCandidate.objects.exists()


def test_a_provider_failure_during_extraction_is_recorded_and_the_job_finishes(
        teacher_api, agent, memory_jobs, extract_replies):
    extract_replies(lambda messages, purpose: ProviderError("provider_unavailable"))
    with memory_jobs():
        run_id = teacher_api.run(agent, PREFERENCE).json()["run_id"]
    assert MemoryOp.objects.get(kind="extract").status == "failed"
    assert CoreExtraction.objects.get(run_id=run_id).outcome == "provider_failed"
    assert Run.objects.get(pk=run_id).memory_done_at is not None


def test_red_line_two_holds_when_the_model_ignores_red_line_one(
        teacher_api, agent, memory_jobs, extract_replies, caplog):
    id_number = generated_id_numbers(1)[0]
    sensitive = [
        f"学生张三的身份证号是{id_number}",
        "家长电话13812345678",
        "小明期中数学考了85分",
        "李华是年级第3名",
        "王同学患有哮喘",
        "小王父母离异",
    ]
    extract_replies([{"fact": text, "confidence": 0.99} for text in sensitive]
                    + [{"fact": "出题偏好选择题多一些", "confidence": 0.6}])
    caplog.set_level(logging.DEBUG)
    with memory_jobs():
        teacher_api.run(agent, "帮我整理一下班级情况")

    assert list(CoreCandidate.objects.values_list("text", flat=True)) == ["出题偏好选择题多一些"]
    assert not CoreFact.objects.exists()
    assert MemoryOp.objects.get(kind="extract").rejected_count == len(sensitive)
    # Not stored anywhere, not logged either.
    dump = io.StringIO()
    call_command("dumpdata", stdout=dump)
    stored = dump.getvalue().encode().decode("unicode_escape") + dump.getvalue()
    for needle in (id_number, "13812345678", "考了85分", "第3名", "哮喘", "离异"):
        assert needle not in stored
        assert needle not in caplog.text
    assert "6 refused by red line 2" in caplog.text


def test_a_duplicate_of_a_pending_candidate_raises_its_confidence_instead_of_adding_one(
        teacher_api, agent, memory_jobs, extract_replies):
    extract_replies([{"fact": "出题偏好：选择题多一些。", "confidence": 0.6}],
                    [{"fact": "出题偏好 选择题多一些", "confidence": 0.5}])
    with memory_jobs():
        teacher_api.run(agent, PREFERENCE)
        teacher_api.run(agent, "再出一份，还是选择题多一些")
    candidate = CoreCandidate.objects.get()
    assert candidate.text == "出题偏好：选择题多一些。"
    assert candidate.confidence == pytest.approx(0.7)
    assert candidate.seen_count == 2


def test_a_duplicate_of_a_confirmed_fact_is_not_proposed_again(
        teacher_api, teacher_actor, agent, memory_jobs, extract_replies, add_fact):
    add_fact(teacher_actor, "教高二")
    extract_replies([{"fact": "教 高二！", "confidence": 0.9}, {"fact": "每周三上实验课", "confidence": 0.4}])
    with memory_jobs():
        teacher_api.run(agent, PREFERENCE)
    assert list(CoreCandidate.objects.values_list("text", flat=True)) == ["每周三上实验课"]
    assert CoreFact.objects.count() == 1


def test_each_owner_gets_their_own_candidates(api, teacher_api, agent, memory_jobs, extract_replies, teacher):
    extract_replies([{"fact": "教高二", "confidence": 0.9}], [{"fact": "教高二", "confidence": 0.9}],
                    [{"fact": "教高二", "confidence": 0.9}])
    with memory_jobs():
        teacher_api.run(agent, PREFERENCE)
        api.run(agent, PREFERENCE, user="alice")
        api.run(agent, PREFERENCE)
    owners = set(CoreCandidate.objects.values_list("owner_id", "end_user"))
    assert owners == {(teacher.pk, ""), (None, "alice"), (None, "")}


def test_at_most_five_candidates_come_from_one_run(teacher_api, agent, memory_jobs, extract_replies):
    extract_replies([{"fact": f"偏好{i}号题型", "confidence": 0.5} for i in range(8)])
    with memory_jobs():
        teacher_api.run(agent, PREFERENCE)
    assert CoreCandidate.objects.count() == services.MAX_CANDIDATES_PER_RUN


def test_the_pending_area_keeps_its_most_confident_candidates(
        teacher_api, agent, memory_jobs, extract_replies, monkeypatch, make_candidate, teacher):
    monkeypatch.setattr(services, "MAX_PENDING", 2)
    make_candidate("偏好甲", owner=teacher, confidence=0.9)
    make_candidate("偏好乙", owner=teacher, confidence=0.2)
    extract_replies([{"fact": "偏好丙", "confidence": 0.5}])
    with memory_jobs():
        teacher_api.run(agent, PREFERENCE)
    assert sorted(CoreCandidate.objects.values_list("text", flat=True)) == ["偏好丙", "偏好甲"]
