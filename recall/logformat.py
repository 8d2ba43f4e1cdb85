"""The recall log: one JSON object per line (the seed's recall_log.jsonl), for backups
and for migrating the old system's log.

Fields written by `recall_export` (and read by `recall_import`):

    run_id        the run the entry records ("run_…"; an old log's own id)
    ts            when the run happened, ISO 8601 with offset
    input         what the teacher asked (as kept by the entry)
    summary       the model summary, or the head of the output
    summary_kind  "model" | "excerpt" | "imported"
    thread_id     the thread, or null
    agent_id      the agent ("ag_…")
    tenant        the school's slug
    owner         the teacher's username, or null
    end_user      an API client's end-user id, or ""

`recall_import` also reads the old system's lines: `input` may be called `task`,
`query` or `prompt`; `summary` may be `output`, `result` or `response`; `ts` may be
`time`, `timestamp` or `created_at` (ISO 8601, or seconds since the epoch). A line
without `run_id` gets a stable one derived from its time and input, so importing the
same file twice adds nothing the second time.
"""

import hashlib
import json
from datetime import datetime, timezone as dt_timezone

from django.utils import timezone

ALIASES = {
    "input": ("input", "task", "query", "prompt"),
    "summary": ("summary", "output", "result", "response"),
    "ts": ("ts", "time", "timestamp", "created_at"),
}


class LogLineError(ValueError):
    def __init__(self, line_number: int, message: str):
        super().__init__(f"line {line_number}: {message}")


def _first(obj: dict, names) -> object:
    for name in names:
        if obj.get(name) not in (None, ""):
            return obj[name]
    return None


def _parse_time(value, line_number: int) -> datetime:
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value, tz=dt_timezone.utc)
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError as exc:
        raise LogLineError(line_number, f"ts {value!r} is not ISO 8601") from exc
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment)


def parse_line(text: str, line_number: int) -> dict | None:
    """One log line as {run_id, ts, input, summary, summary_kind, agent_id, owner, end_user}."""
    text = text.strip()
    if not text:
        return None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LogLineError(line_number, "not a JSON object") from exc
    if not isinstance(obj, dict):
        raise LogLineError(line_number, "not a JSON object")
    input_text = _first(obj, ALIASES["input"])
    ts = _first(obj, ALIASES["ts"])
    if not isinstance(input_text, str) or not input_text.strip():
        raise LogLineError(line_number, "no input")
    if ts is None:
        raise LogLineError(line_number, "no ts")
    moment = _parse_time(ts, line_number)
    run_id = obj.get("run_id") or "legacy_" + hashlib.sha256(f"{moment.isoformat()}\n{input_text}".encode()).hexdigest()[:24]
    summary = _first(obj, ALIASES["summary"]) or ""
    kind = obj.get("summary_kind") if obj.get("summary_kind") in ("model", "excerpt", "imported") else None
    return {
        "run_id": str(run_id)[:64],
        "ts": moment,
        "input": input_text,
        "summary": str(summary),
        "summary_kind": kind,
        "agent_id": obj.get("agent_id"),
        "owner": obj.get("owner"),
        "end_user": obj.get("end_user") or "",
    }


def entry_line(entry) -> str:
    return json.dumps(
        {
            "run_id": entry.run_ref,
            "ts": timezone.localtime(entry.happened_at).isoformat(),
            "input": entry.input,
            "summary": entry.summary,
            "summary_kind": entry.summary_kind,
            "thread_id": entry.thread_id,
            "agent_id": entry.agent_id,
            "tenant": entry.tenant.slug,
            "owner": entry.owner.username if entry.owner_id else None,
            "end_user": entry.end_user,
        },
        ensure_ascii=False,
    )
