"""The erasure proof's tools: plant a unique canary string through every path that stores
what an owner says, and scan the whole database for it.

Used in-process (tests/privacy/test_canary.py, on SQLite and PostgreSQL) and from a
child process against a file database (`python -m tests.privacy.canary plant …`), so
the raw bytes of the SQLite file can be searched too.

The canary is lowercase ASCII letters and digits, shorter than a search term's cap, so
it survives every store unchanged: JSON columns (no \\u escapes), the lexical index
(one term), LIKE patterns (no wildcards).
"""

import json
import secrets
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.utils import timezone

#: every path the proof plants through, checked after planting so none is silently skipped
PATHS = ("input", "output", "typed_fact", "candidate", "document_text", "document_title", "archived_output",
         "recall_import", "recall_entry", "thread_summary", "index_posting")


def new_canary() -> str:
    """A fresh canary the red line lets through: random hex now and then holds a run of
    digits that is a valid mobile number or card number (kanari0cc14554435326c5), which no
    path may store, so such a draw is thrown away."""
    from core import redline

    while True:
        canary = "kanari" + secrets.token_hex(8)
        if redline.check(canary).ok:
            return canary


def _client_for(*, tenant, user=None, api_key=None) -> tuple[Client, dict, dict]:
    """(client, headers, owner body fields) acting as a teacher (session) or an end user (key)."""
    client = Client()
    if user is not None:
        client.force_login(user)
        return client, {}, {}
    return client, {"HTTP_X_API_KEY": api_key}, {}


def _post(client, path, body, headers):
    response = client.post(path, data=json.dumps(body), content_type="application/json", **headers)
    assert response.status_code in (200, 201), (path, response.status_code, response.content[:300])
    return response.json()


def plant(*, tenant, agent, canary: str, user=None, end_user: str = "", api_key: str = "") -> dict:
    """Plant `canary` through every path for one owner: a teacher (`user`) or an end user
    (`end_user`, through the school's `api_key`). Returns what was created."""
    from agents.providers import scripted

    client, headers, _ = _client_for(tenant=tenant, user=user, api_key=api_key)
    owner = {"user": end_user} if end_user else {}
    # The model proposes a fact holding the canary the first time extraction runs.
    scripted.queue_replies(json.dumps([{"fact": f"{canary} 喜欢先出选择题", "confidence": 0.9}]), purpose="extract")
    thread_id = None
    run_ids = []
    for turn in range(4):  # K=2 recent turns: the older ones are folded into the rolling summary
        body = {"input": f"{canary} 出第{turn + 1}份数据结构试卷", **owner}
        if thread_id:
            body["thread_id"] = thread_id
        reply = _post(client, f"/api/agents/{agent.pk}/run", body, headers)
        assert reply["status"] == "completed", reply
        thread_id = reply["thread_id"]
        run_ids.append(reply["run_id"])
    _post(client, f"/api/agents/{agent.pk}/memory/facts", {"text": f"{canary} 班级用人教版教材", **owner}, headers)
    if user is not None:  # only a teacher uploads as themself; an API key uploads for the school
        _post(client, f"/api/agents/{agent.pk}/documents",
              {"title": f"{canary} 讲义", "text": f"第一章 {canary} 链表与栈的讲义正文。"}, headers)
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as log:
        log.write(json.dumps({"run_id": f"legacy{canary}", "ts": (timezone.now() - timedelta(days=3)).isoformat(),
                              "input": f"{canary} 旧系统里的一次出题", "summary": f"{canary} 出了十道题",
                              "agent_id": agent.pk}, ensure_ascii=False) + "\n")
    selector = ["--owner", user.username] if user is not None else ["--end-user", end_user]
    call_command("recall_import", log.name, "--tenant", tenant.slug, *selector, stdout=open("/dev/null", "w"))
    Path(log.name).unlink()
    return {"thread_id": thread_id, "run_ids": run_ids}


def planted_paths(*, canary: str) -> set[str]:
    """Which paths hold the canary right now (the planting check, and the "untouched" check)."""
    from agents.models import Run
    from corememory.models import CoreCandidate, CoreFact
    from knowledge.models import Document
    from recall.models import RecallEntry
    from search.models import Posting
    from threads.models import Thread

    found = set()
    checks = {
        "input": Run.objects.filter(input__contains=canary),
        "output": Run.objects.filter(output__contains=canary),
        "typed_fact": CoreFact.objects.filter(text__contains=canary, origin=CoreFact.Origin.MANUAL),
        "candidate": CoreCandidate.objects.filter(text__contains=canary),
        "document_text": Document.objects.filter(text__contains=canary, source_run__isnull=True),
        "document_title": Document.objects.filter(title__contains=canary, source_run__isnull=True),
        "archived_output": Document.objects.filter(text__contains=canary, source_run__isnull=False),
        "recall_import": RecallEntry.objects.filter(input__contains=canary, summary_kind="imported"),
        "recall_entry": RecallEntry.objects.filter(input__contains=canary, run__isnull=False),
        "thread_summary": Thread.objects.filter(rolling_summary__contains=canary),
        "index_posting": Posting.objects.filter(term=canary),
    }
    for path, queryset in checks.items():
        if queryset.exists():
            found.add(path)
    return found


def scan(*, canary: str) -> list[tuple[str, str, int]]:
    """(table, column, rows) for every column of every table (found by introspection)
    whose text holds the canary. Every column is cast to text, so text, JSON and
    anything else a future model adds is covered."""
    hits = []
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            for column in connection.introspection.get_table_description(cursor, table):
                cursor.execute(
                    f"SELECT COUNT(*) FROM {quote(table)} WHERE CAST({quote(column.name)} AS TEXT) LIKE %s",
                    [f"%{canary}%"],
                )
                count = cursor.fetchone()[0]
                if count:
                    hits.append((table, column.name, count))
    return hits


def file_hits(db_path: Path, canary: str) -> dict[str, int]:
    """Occurrences of the canary in the raw bytes of a SQLite database and its WAL files."""
    needle = canary.encode()
    hits = {}
    for path in (db_path, Path(f"{db_path}-wal"), Path(f"{db_path}-shm"), Path(f"{db_path}-journal")):
        if path.exists():
            hits[path.name] = path.read_bytes().count(needle)
    return hits


def _main(argv: list[str]) -> None:
    """`python -m tests.privacy.canary setup` → JSON with the ids a test needs;
    `… plant CANARY (--teacher NAME | --end-user ID)`, `… scan CANARY` → JSON."""
    import django

    django.setup()
    from agents.models import Agent, ApiKey, Tenant, User
    from agents.services import agent_create, api_key_create, teacher_create, tenant_create

    command = argv[0]
    if command == "setup":
        school = tenant_create(slug="yizhong", name="第一中学")
        teacher_create(tenant=school, username="wang", password="pw-wang-123")
        teacher_create(tenant=school, username="li", password="pw-li-123")
        agent = agent_create(tenant=school, name="出题助手", provider_kind="scripted", model="scripted-zh")
        Agent.objects.filter(pk=agent.pk).update(archive_outputs=True)
        print(json.dumps({"agent_id": agent.pk, "api_key": api_key_create(tenant=school, name="t")[1]}))
    elif command == "plant":
        canary, flag, who = argv[1], argv[2], argv[3]
        school = Tenant.objects.get(slug="yizhong")
        agent = Agent.objects.get(tenant=school)
        if flag == "--teacher":
            plant(tenant=school, agent=agent, canary=canary, user=User.objects.get(username=who))
        else:
            key = ApiKey.objects.filter(tenant=school).first()
            assert key is not None
            plant(tenant=school, agent=agent, canary=canary, end_user=who, api_key=argv[4])
        print(json.dumps(sorted(planted_paths(canary=canary))))
    elif command == "scan":
        print(json.dumps({"columns": scan(canary=argv[1]), "paths": sorted(planted_paths(canary=argv[1]))}))


if __name__ == "__main__":
    _main(sys.argv[1:])
