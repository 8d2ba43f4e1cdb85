"""Input that never 500s: the validated-text type on every endpoint that takes text, the
413 for oversized bodies and the 400 for JSON nested too deep. Run on SQLite and
PostgreSQL (DATABASE_URL), where NUL used to be stored or to crash."""

import json

import pytest
from ninja import Schema

from agents.middleware import JSON_MAX_DEPTH, json_depth_exceeds
from agents.models import Run
from core.errors import AppError
from core.text import SafeText, clean_text, validate_text
from corememory.models import CoreCandidate, CoreFact
from knowledge.models import Document
from threads.models import Thread

BAD_TEXTS = {
    "nul": "a\x00b",
    "surrogate": "a\ud800b",
    "escape": "a\x1b[31mb",
    "bell": "a\x07b",
    "c1": "a\x85b",
    "del": "a\x7fb",
}
BIDI = "数学\u202e试卷\u2066x\u2069"


@pytest.mark.parametrize("text", BAD_TEXTS.values(), ids=BAD_TEXTS.keys())
def test_validate_text_refuses_what_no_database_can_store(text):
    with pytest.raises(AppError) as caught:
        validate_text(text, field="title")
    assert (caught.value.code, caught.value.status) == ("invalid_text", 422)
    assert "title" in caught.value.detail


def test_tabs_newlines_and_crlf_are_kept_and_bidi_controls_stripped():
    assert validate_text("一\t二\r\n三\n") == "一\t二\r\n三\n"
    assert validate_text(BIDI) == "数学试卷x"
    assert clean_text("a\x00b\x1b\u202ec") == "abc"


class _Probe(Schema):
    text: SafeText


@pytest.mark.parametrize("text", BAD_TEXTS.values(), ids=BAD_TEXTS.keys())
def test_safe_text_fails_schema_validation_with_the_invalid_text_type(text):
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as caught:
        _Probe.model_validate({"text": text})
    assert caught.value.errors()[0]["type"] == "invalid_text"
    assert _Probe.model_validate({"text": BIDI}).text == "数学试卷x"


def test_the_depth_scan_counts_brackets_outside_strings_only():
    assert not json_depth_exceeds(json.dumps({"a": [[1]] * 500, "s": "[" * 10_000}).encode())
    assert not json_depth_exceeds(("[" * JSON_MAX_DEPTH + "]" * JSON_MAX_DEPTH).encode())
    assert json_depth_exceeds(("[" * (JSON_MAX_DEPTH + 1) + "]" * (JSON_MAX_DEPTH + 1)).encode())
    assert json_depth_exceeds(b'{"a":' * 100_000 + b"1" + b"}" * 100_000)
    assert not json_depth_exceeds(b'"\\"[[[[' + b"[" * 100 + b'"')


# --- every endpoint that takes text ------------------------------------------------------


@pytest.fixture
def candidate(school, agent):
    from corememory.models import CoreCandidate

    return CoreCandidate.objects.create(tenant=school, agent=agent, text="老师偏好选择题", normalized="老师偏好选择题",
                                        confidence=0.8)


def _targets(api, agent, candidate):
    thread_id = api.run(agent, "出一份试卷").json()["thread_id"]
    fact_id = api.post(f"/api/agents/{agent.pk}/memory/facts", {"text": "学校用人教版教材"}).json()["fact"]["id"]
    return [
        ("post", f"/api/agents/{agent.pk}/run", lambda t: {"input": t}),
        ("post", f"/api/agents/{agent.pk}/run/stream", lambda t: {"input": t}),
        ("post", f"/api/agents/{agent.pk}/run", lambda t: {"input": "出题", "user": t}),
        ("patch", f"/api/threads/{thread_id}", lambda t: {"title": t}),
        ("post", f"/api/agents/{agent.pk}/memory/facts", lambda t: {"text": "偏好" + t}),
        ("patch", f"/api/memory/facts/{fact_id}", lambda t: {"text": "偏好" + t}),
        ("post", f"/api/memory/candidates/{candidate.pk}/confirm", lambda t: {"text": "偏好" + t}),
        ("post", f"/api/agents/{agent.pk}/documents", lambda t: {"title": t, "text": "资料"}),
        ("post", f"/api/agents/{agent.pk}/documents", lambda t: {"title": "资料", "text": t}),
    ]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", BAD_TEXTS.keys())
def test_text_no_database_can_store_is_a_422_invalid_text_on_every_endpoint(api, agent, candidate, kind):
    targets = _targets(api, agent, candidate)
    counts = (Run.objects.count(), Thread.objects.count(), CoreFact.objects.count(), Document.objects.count())
    for method, path, body in targets:
        raw = json.dumps(body(BAD_TEXTS[kind]))
        if method == "post":
            response = api.post(path, raw=raw)
        else:
            response = api.client.patch(path, data=raw, content_type="application/json", HTTP_X_API_KEY=api.key)
        assert response.status_code == 422, (path, response.content)
        assert response.json()["code"] == "invalid_text", (path, response.content)
    assert (Run.objects.count(), Thread.objects.count(), CoreFact.objects.count(), Document.objects.count()) == counts
    assert CoreCandidate.objects.filter(pk=candidate.pk).exists()
    assert [fact.text for fact in CoreFact.objects.all()] == ["学校用人教版教材"]


@pytest.mark.parametrize("kind", ["nul", "escape"])
def test_services_refuse_bad_text_whatever_calls_them(teacher_actor_for_text, agent, school, kind):
    from corememory.services import fact_add
    from knowledge.services import document_create

    with pytest.raises(AppError) as caught:
        fact_add(actor=teacher_actor_for_text, agent=agent, text="偏好" + BAD_TEXTS[kind])
    assert caught.value.code == "invalid_text"
    with pytest.raises(AppError) as caught:
        document_create(tenant=school, agent=agent, title="x" + BAD_TEXTS[kind], text="资料")
    assert caught.value.code == "invalid_text"


@pytest.fixture
def teacher_actor_for_text(school, teacher):
    from agents.actor import Actor

    return Actor(tenant=school, user=teacher)


def test_bidi_overrides_are_stripped_from_what_is_stored(api, agent):
    response = api.post(f"/api/agents/{agent.pk}/memory/facts", {"text": "偏好\u202e选择题\u2066"})
    assert response.status_code == 201, response.content
    assert CoreFact.objects.get().text == "偏好选择题"
    response = api.post(f"/api/agents/{agent.pk}/documents", {"title": "讲\u202d义", "text": "二叉树\u202e的遍历"})
    assert response.status_code == 201, response.content
    document = Document.objects.get()
    assert (document.title, document.text) == ("讲义", "二叉树的遍历")


# --- bodies too large or too deep --------------------------------------------------------


def _every_body_endpoint(agent, thread_id="th_x", fact_id="fct_x", candidate_id="cand_x"):
    return [
        ("post", f"/api/agents/{agent.pk}/run"),
        ("post", f"/api/agents/{agent.pk}/run/stream"),
        ("patch", f"/api/threads/{thread_id}"),
        ("post", f"/api/threads/{thread_id}/archive"),
        ("post", f"/api/agents/{agent.pk}/memory/facts"),
        ("patch", f"/api/memory/facts/{fact_id}"),
        ("post", f"/api/memory/candidates/{candidate_id}/confirm"),
        ("post", f"/api/agents/{agent.pk}/documents"),
    ]


def _send(client, method, path, body: bytes, key, content_type="application/json"):
    return getattr(client, method)(path, data=body, content_type=content_type, HTTP_X_API_KEY=key)


@pytest.mark.parametrize("shape", ["array", "object"])
def test_json_nested_100k_deep_is_a_400_json_too_deep_on_every_endpoint(client, api_key, agent, shape):
    body = (b"[" * 100_000 + b"]" * 100_000) if shape == "array" else (b'{"a":' * 100_000 + b"1" + b"}" * 100_000)
    for method, path in _every_body_endpoint(agent):
        response = _send(client, method, path, body, api_key)
        assert (response.status_code, response.json()["code"]) == (400, "json_too_deep"), path
    assert not Run.objects.exists()


def test_json_at_the_bound_is_judged_by_the_schema_not_refused_as_deep(api, agent):
    nested = "[" * (JSON_MAX_DEPTH - 2) + "]" * (JSON_MAX_DEPTH - 2)
    response = api.post(f"/api/agents/{agent.pk}/run", raw='{"input": "出题", "context": {"x": ' + nested + "}}")
    assert response.status_code == 200, response.content


def test_a_body_over_the_limit_is_a_json_413_on_every_endpoint(client, api_key, agent, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = json.dumps({"input": "题" * 2000, "title": "x", "text": "y" * 2000}).encode()
    for method, path in _every_body_endpoint(agent):
        response = _send(client, method, path, body, api_key)
        assert (response.status_code, response.json()["code"]) == (413, "payload_too_large"), path
    assert not Run.objects.exists()


def test_a_multipart_upload_over_the_file_limit_is_a_json_413(client, api_key, agent, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    settings.KB_MAX_UPLOAD_BYTES = 1000
    big = SimpleUploadedFile("big.txt", b"x" * 200_000, content_type="text/plain")
    response = client.post(f"/api/agents/{agent.pk}/documents", {"file": big}, HTTP_X_API_KEY=api_key)
    assert (response.status_code, response.json()["code"]) == (413, "payload_too_large")
    assert not Document.objects.exists()


def test_a_nul_in_the_query_string_of_a_page_is_a_plain_400(client):
    assert client.get("/", {"q": "a\x00b"}).status_code == 400
