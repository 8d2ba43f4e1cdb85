"""Thread and continue-run are orthogonal: a thread carries dialogue context; a previous
artifact is bound only by an explicit context.run_id, on the stream endpoint only."""

from django.test import Client

from agents.models import Run
from agents.runner import ARTIFACT_CLOSE, ARTIFACT_OPEN
from tests.conftest import ApiClient, sse_events
from core.fencing import DATAMARK
from tests.threads.helpers import ZH, say, sent_prompt, thread_section, without_nonce

ARTIFACT = "一、选择题（共10题）……二、简答题（共3题）"


def _stream(api, agent, text, **body):
    response = api.post(f"/api/agents/{agent.pk}/run/stream", {"input": text, **body})
    if response.status_code != 200:
        return response, []
    return response, sse_events(response)


def test_continuing_on_the_sync_endpoint_is_refused(api, agent):
    first = say(api, agent, "出一份数据结构试卷")
    response = api.run(agent, "在上次试卷上改", thread_id=first["thread_id"], context={"run_id": first["run_id"]})
    assert response.status_code == 400 and response.json()["code"] == "continue_stream_only"
    assert Run.objects.count() == 1


def test_an_explicit_continue_gives_the_previous_output_as_a_separately_labelled_artifact(
    api, agent, scripted_provider
):
    scripted_provider.queue_replies(ARTIFACT)
    first = say(api, agent, "出一份数据结构试卷")
    _, events = _stream(api, agent, "在上次试卷上把简答题换两道", thread_id=first["thread_id"],
                        context={"run_id": first["run_id"]})
    assert events[-1][0] == "done"

    prompt = without_nonce(sent_prompt())
    artifact = prompt.split(ARTIFACT_OPEN["zh"], 1)[1].split(ARTIFACT_CLOSE["zh"], 1)[0]
    assert artifact.strip() == DATAMARK + ARTIFACT
    # The artifact sits outside the history fence, with its own label, before the request.
    assert prompt.index(ZH["close"]) < prompt.index(ARTIFACT_OPEN["zh"]) < prompt.index("[用户问题]")
    run = Run.objects.get(pk=events[0][1]["run_id"])
    assert run.continued_from_id == first["run_id"]


def test_a_thread_alone_never_binds_the_previous_artifact(api, agent, scripted_provider):
    scripted_provider.queue_replies(ARTIFACT)
    first = say(api, agent, "出一份数据结构试卷")

    _, events = _stream(api, agent, "简答题换两道", thread_id=first["thread_id"])
    assert DATAMARK + ARTIFACT in thread_section(sent_prompt()), "the thread carries the dialogue"
    assert ARTIFACT_OPEN["zh"] not in sent_prompt()
    assert Run.objects.get(pk=events[0][1]["run_id"]).continued_from_id is None

    say(api, agent, "简答题换两道", thread_id=first["thread_id"])
    assert ARTIFACT_OPEN["zh"] not in sent_prompt()


def test_a_continue_without_a_thread_starts_a_new_thread_with_only_the_artifact(api, agent, scripted_provider):
    scripted_provider.queue_replies(ARTIFACT)
    first = say(api, agent, "出一份数据结构试卷")
    _, events = _stream(api, agent, "在上次试卷上改", context={"run_id": first["run_id"]})
    assert events[0][1]["thread_id"] != first["thread_id"]
    prompt = without_nonce(sent_prompt())
    assert ARTIFACT_OPEN["zh"] in prompt and ZH["open"] not in prompt


def test_only_a_run_of_the_same_agent_school_and_owner_can_be_continued(
    api, agent, en_agent, other_agent, other_key, teacher
):
    mine = say(api, agent, "出一份数据结构试卷")
    other_agents = say(api, en_agent, "Write an exam")
    students = say(api, agent, "学生的试卷", user="stu-1")
    other_schools = say(ApiClient(api.client, other_key), other_agent, "二中的试卷")
    teacher_client = Client()
    teacher_client.force_login(teacher)
    teachers = say(ApiClient(teacher_client, key=""), agent, "王老师的试卷")

    for foreign in (other_agents, students, other_schools, teachers):
        response, _ = _stream(api, agent, "在上次试卷上改", context={"run_id": foreign["run_id"]})
        assert response.status_code == 400 and response.json()["code"] == "continue_run_mismatch"
    response, events = _stream(api, agent, "在上次试卷上改", context={"run_id": mine["run_id"]})
    assert response.status_code == 200 and events[-1][0] == "done"
