"""Item 7 of issue 13, the proof: a canary planted through every path is gone from every
column of every table after an erase, and a second owner's canary is untouched and still
retrievable. Runs on whichever database the suite runs on (SQLite, PostgreSQL); the raw
bytes of a SQLite file are searched in test_canary_file.py."""

import json

import pytest
from django.core.management import call_command

from recall.scopes import recall_scope
from search.engine import search
from tests.privacy.canary import PATHS, new_canary, plant, planted_paths, scan

END_USER_PATHS = set(PATHS) - {"document_text", "document_title"}  # an API key uploads for the school


def _erase(capsys, *args) -> dict:
    call_command("erase", "--tenant", "yizhong", *args)
    return json.loads(capsys.readouterr().out)


@pytest.mark.django_db(transaction=True)
def test_erasing_a_teacher_leaves_no_trace_of_their_canary_and_keeps_a_colleagues(
    school, teacher, second_teacher, archiving_agent, api_key, client, capsys
):
    mine, theirs = new_canary(), new_canary()
    plant(tenant=school, agent=archiving_agent, canary=mine, user=teacher)
    plant(tenant=school, agent=archiving_agent, canary=theirs, user=second_teacher)
    assert planted_paths(canary=mine) == set(PATHS)
    assert planted_paths(canary=theirs) == set(PATHS)
    assert scan(canary=mine)

    receipt = _erase(capsys, "--teacher", "wang")

    assert scan(canary=mine) == []
    assert planted_paths(canary=theirs) == set(PATHS)
    # Four runs, each archived, and one uploaded document.
    assert receipt["counts"]["runs"] == 4 and receipt["counts"]["documents"] == 5
    # Still retrievable: the colleague's facts, candidates, recall and documents answer.
    client.force_login(second_teacher)
    memory = client.get(f"/api/agents/{archiving_agent.pk}/memory").json()
    assert any(theirs in fact["text"] for fact in memory["confirmed"])
    assert any(theirs in cand["text"] for cand in memory["pending"])
    scope = recall_scope(tenant_id=school.pk, agent_id=archiving_agent.pk, owner_id=second_teacher.pk, end_user="")
    assert search(scope_key=scope.key, query=theirs)
    documents = client.get(f"/api/agents/{archiving_agent.pk}/documents").json()
    assert sum(theirs in doc["title"] for doc in documents["items"]) == 5
    # Idempotent: a second erase finds nothing.
    assert _erase(capsys, "--teacher", "wang")["total"] == 0


@pytest.mark.django_db(transaction=True)
def test_erasing_an_end_user_leaves_no_trace_of_their_canary_and_keeps_another_end_users(
    school, archiving_agent, api_key, client, capsys
):
    mine, theirs = new_canary(), new_canary()
    plant(tenant=school, agent=archiving_agent, canary=mine, end_user="student-17", api_key=api_key)
    plant(tenant=school, agent=archiving_agent, canary=theirs, end_user="student-18", api_key=api_key)
    assert planted_paths(canary=mine) == END_USER_PATHS
    assert planted_paths(canary=theirs) == END_USER_PATHS

    receipt = _erase(capsys, "--end-user", "student-17")

    assert scan(canary=mine) == []
    assert planted_paths(canary=theirs) == END_USER_PATHS
    assert receipt["subject_kind"] == "end_user" and "student-17" not in json.dumps(receipt)
    memory = client.get(f"/api/agents/{archiving_agent.pk}/memory", {"user": "student-18"},
                        HTTP_X_API_KEY=api_key).json()
    assert any(theirs in fact["text"] for fact in memory["confirmed"])
    scope = recall_scope(tenant_id=school.pk, agent_id=archiving_agent.pk, owner_id=None, end_user="student-18")
    assert search(scope_key=scope.key, query=theirs)
