"""The erase endpoint (the school's API key), the export endpoint and `manage.py
export_memory`, and conversation deletion over the API."""

import json

import pytest
from django.core.management import call_command

from agents.models import Run
from corememory.models import CoreCandidate, CoreFact
from privacy.export import SCHEMA_VERSION
from privacy.models import ErasureReceipt
from recall.models import RecallEntry
from tests.privacy.canary import PATHS, new_canary, plant, planted_paths, scan
from threads.models import Thread


@pytest.mark.django_db(transaction=True)
def test_the_api_key_erases_an_end_user_of_its_school_and_gets_the_receipt(school, archiving_agent, api, api_key):
    canary = new_canary()
    plant(tenant=school, agent=archiving_agent, canary=canary, end_user="s1", api_key=api_key)

    dry = api.post("/api/privacy/erase", {"user": "s1", "dry_run": True})
    assert dry.status_code == 200 and dry.json()["receipt_id"] is None
    response = api.post("/api/privacy/erase", {"user": "s1"})

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["counts"] == dry.json()["counts"] and body["counts"]["runs"] == 4
    assert ErasureReceipt.objects.get(pk=body["receipt_id"]).requested_via == "api"
    assert scan(canary=canary) == []


@pytest.mark.django_db
def test_the_api_key_erases_a_teacher_of_its_school(school, teacher, agent, api, client):
    client.force_login(teacher)
    client.post(f"/api/agents/{agent.pk}/run", {"input": "出题"}, content_type="application/json")
    response = api.post("/api/privacy/erase", {"teacher": "wang"})
    assert response.status_code == 200 and response.json()["counts"]["runs"] == 1
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_another_schools_key_gets_404_and_erases_nothing(school, teacher, agent, other_school, other_key, api):
    api.run(agent, "出题", user="s1")
    assert api.post("/api/privacy/erase", {"teacher": "wang"}, key=other_key).json()["code"] == "not_found"
    response = api.post("/api/privacy/erase", {"user": "s1"}, key=other_key)
    assert response.status_code == 200 and response.json()["total"] == 0  # erzhong has no end user s1
    assert Run.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("body, status, code", [
    ({}, 422, "one_subject"),
    ({"teacher": "wang", "user": "s1"}, 422, "one_subject"),
    ({"user": "  "}, 422, "invalid_user"),
    ({"teacher": "nobody"}, 404, "not_found"),
    ({"user": "x" * 129}, 422, "validation_error"),
])
def test_bad_erase_requests_get_a_stable_code(school, teacher, api, body, status, code):
    response = api.post("/api/privacy/erase", body)
    assert (response.status_code, response.json()["code"]) == (status, code)
    assert not ErasureReceipt.objects.exists()


@pytest.mark.django_db
def test_erase_refuses_a_missing_key_and_a_teachers_session(school, teacher, client, api):
    assert api.post("/api/privacy/erase", {"teacher": "wang"}, key="mk_wrong").status_code == 401
    stray = api.post("/api/privacy/erase?user=s1", {"teacher": "wang"})
    assert (stray.status_code, stray.json()["code"]) == (422, "user_not_accepted")
    client.force_login(teacher)
    response = client.post("/api/privacy/erase", {"teacher": "wang"}, content_type="application/json")
    assert (response.status_code, response.json()["code"]) == (403, "api_key_required")


@pytest.mark.django_db(transaction=True)
def test_the_export_holds_every_layer_and_its_recall_part_is_what_recall_import_reads(
    school, teacher, second_teacher, archiving_agent, capsys, tmp_path
):
    canary = new_canary()
    plant(tenant=school, agent=archiving_agent, canary=canary, user=teacher)
    call_command("export_memory", "--tenant", "yizhong", "--teacher", "wang")
    export = json.loads(capsys.readouterr().out)

    assert export["schema_version"] == SCHEMA_VERSION and export["subject"] == {"kind": "teacher", "teacher": "wang"}
    assert len(export["threads"]) == 1 and len(export["threads"][0]["runs"]) == 4
    assert canary in export["threads"][0]["rolling_summary"]
    assert [canary in fact["text"] for fact in export["facts"]] == [True]
    assert [canary in cand["text"] for cand in export["candidates"]] == [True]
    assert len(export["recall"]) == 5 and len(export["documents"]) == 5
    # The recall part, one entry per line, is a file recall_import reads.
    log = tmp_path / "recall.jsonl"
    log.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in export["recall"]), encoding="utf-8")
    RecallEntry.objects.filter(owner=teacher).delete()
    call_command("recall_import", str(log), "--tenant", "yizhong", "--owner", "li")
    assert "imported 5 recall entries" in capsys.readouterr().out
    assert RecallEntry.objects.filter(owner=second_teacher, input__contains=canary).count() == 5


@pytest.mark.django_db(transaction=True)
def test_a_teacher_exports_only_their_own_memory_and_a_key_exports_one_end_user(
    school, teacher, second_teacher, archiving_agent, api, api_key, client
):
    mine, theirs, student = new_canary(), new_canary(), new_canary()
    plant(tenant=school, agent=archiving_agent, canary=mine, user=teacher)
    plant(tenant=school, agent=archiving_agent, canary=theirs, user=second_teacher)
    plant(tenant=school, agent=archiving_agent, canary=student, end_user="s1", api_key=api_key)

    client.force_login(teacher)
    text = client.get("/api/privacy/export").content.decode()
    assert mine in text and theirs not in text and student not in text
    refused = client.get("/api/privacy/export", {"user": "s1"})  # a teacher's session is always the teacher
    assert (refused.status_code, refused.json()["code"]) == (422, "user_not_accepted")
    by_key = api.get("/api/privacy/export", user="s1").content.decode()
    assert student in by_key and mine not in by_key
    response = api.get("/api/privacy/export")
    assert (response.status_code, response.json()["code"]) == (422, "user_required")


@pytest.mark.django_db(transaction=True)
def test_deleting_a_conversation_removes_what_came_from_it_and_keeps_confirmed_facts_unlinked(
    school, teacher, archiving_agent, client, capsys
):
    canary, other = new_canary(), new_canary()
    planted = plant(tenant=school, agent=archiving_agent, canary=canary, user=teacher)
    client.force_login(teacher)
    kept = client.post(f"/api/agents/{archiving_agent.pk}/run", {"input": f"{other} 另一个会话"},
                       content_type="application/json").json()
    candidate = CoreCandidate.objects.get(text__contains=canary)
    confirmed = client.post(f"/api/memory/candidates/{candidate.pk}/confirm", {},
                            content_type="application/json")
    assert confirmed.status_code == 200, confirmed.content

    response = client.post(f"/api/threads/{planted['thread_id']}/delete", {}, content_type="application/json")

    assert response.status_code == 200, response.content
    counts = response.json()["counts"]
    assert counts["runs"] == 4 and counts["threads"] == 1 and counts["facts_unlinked"] == 1
    assert not Thread.objects.filter(pk=planted["thread_id"]).exists()
    # What came from the conversation is gone; what a person confirmed or typed stays.
    assert planted_paths(canary=canary) == {"typed_fact", "document_text", "document_title", "recall_import",
                                            "index_posting"}  # the document and the import stay indexed
    fact = CoreFact.objects.get(text__contains=canary, origin="candidate")
    assert fact.source_run_id is None
    assert Run.objects.filter(pk=kept["run_id"]).exists()
    assert set(PATHS) >= planted_paths(canary=other) >= {"input", "output"}


@pytest.mark.django_db
def test_nobody_deletes_another_owners_conversation(school, teacher, second_teacher, agent, client, api):
    thread_id = api.run(agent, "出题", user="s1").json()["thread_id"]
    client.force_login(second_teacher)
    assert client.post(f"/api/threads/{thread_id}/delete").status_code == 404
    assert api.post(f"/api/threads/{thread_id}/delete").status_code == 404  # school-wide scope is not s1's
    assert api.post(f"/api/threads/{thread_id}/delete?user=s2").status_code == 404
    assert Thread.objects.filter(pk=thread_id).exists()
    assert api.post(f"/api/threads/{thread_id}/delete?user=s1").status_code == 200
