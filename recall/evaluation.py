"""recall_eval: public memory benchmarks through the real recall path.

Each conversation becomes its own agent and owner; each dialogue turn (LoCoMo) or each
session (LongMemEval) a recall entry with its original date; every question that has
evidence is asked through `recall_search`, the selector the recall layer uses.
"""

import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np
from django.utils import timezone

from agents.actor import Actor
from agents.services import agent_create
from recall.selectors import recall_search
from recall.services import recall_entries_import
from search.terms import query_terms

BATCH = 1000
# The layer's rule, reported beside recall@k: the top 3 whose score is above 0.2.
GATE_TOP_K = 3
GATE_MIN_SCORE = 0.2


@dataclass
class Question:
    text: str
    evidence: set  # entry ids (turns for LoCoMo, sessions for LongMemEval)
    sessions: set


@dataclass
class Conversation:
    key: str
    entries: list = field(default_factory=list)  # rows for recall_entries_import
    session_of: dict = field(default_factory=dict)  # entry id -> session id
    questions: list = field(default_factory=list)
    turn_level: bool = True


_BASE = datetime(2023, 1, 1)


def _parse_date(value, formats, fallback_index: int) -> datetime:
    for fmt in formats:
        try:
            return timezone.make_aware(datetime.strptime(str(value).strip(), fmt))
        except (ValueError, TypeError):
            continue
    return timezone.make_aware(_BASE + timedelta(days=fallback_index))


def _session_number(key: str) -> int:
    return int(key.rsplit("_", 1)[1])


def load_locomo(data) -> list[Conversation]:
    conversations = []
    for index, sample in enumerate(data):
        conv = sample["conversation"]
        out = Conversation(key=str(sample.get("sample_id") or f"locomo-{index}"))
        session_keys = sorted((k for k in conv if re.fullmatch(r"session_\d+", k)), key=_session_number)
        for key in session_keys:
            number = _session_number(key)
            when = _parse_date(conv.get(f"{key}_date_time"), ["%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"], number)
            for position, turn in enumerate(conv[key]):
                text = turn.get("text", "")
                if turn.get("blip_caption"):
                    text = f"{text} [image: {turn['blip_caption']}]"
                dia_id = turn["dia_id"]
                out.entries.append({"run_id": dia_id, "ts": when + timedelta(seconds=position),
                                    "input": f"{turn.get('speaker', '')}: {text}", "summary": ""})
                out.session_of[dia_id] = dia_id.split(":")[0]
        for qa in sample.get("qa", []):
            evidence = {e for item in qa.get("evidence") or [] for e in re.split(r"[;,\s]+", str(item)) if e}
            evidence &= set(out.session_of)
            if evidence:
                out.questions.append(Question(qa["question"], evidence, {out.session_of[e] for e in evidence}))
        conversations.append(out)
    return conversations


def load_longmemeval(data) -> list[Conversation]:
    conversations = []
    for index, item in enumerate(data):
        out = Conversation(key=str(item.get("question_id") or f"longmemeval-{index}"), turn_level=False)
        dates = item.get("haystack_dates") or []
        for position, (session_id, session) in enumerate(zip(item["haystack_session_ids"], item["haystack_sessions"])):
            when = _parse_date(dates[position] if position < len(dates) else None,
                               ["%Y/%m/%d (%a) %H:%M", "%Y/%m/%d %H:%M", "%Y-%m-%d"], position)
            text = "\n".join(f"{turn.get('role', '')}: {turn.get('content', '')}" for turn in session)
            out.entries.append({"run_id": str(session_id), "ts": when, "input": text, "summary": ""})
            out.session_of[str(session_id)] = str(session_id)
        evidence = {str(s) for s in item.get("answer_session_ids") or []} & set(out.session_of)
        if evidence:
            out.questions.append(Question(item["question"], evidence, evidence))
        conversations.append(out)
    return conversations


LOADERS = {"locomo": load_locomo, "longmemeval": load_longmemeval}


@dataclass
class Report:
    ks: list
    conversations: int = 0
    entries: int = 0
    questions: int = 0
    turn_level: bool = True
    turn: dict = field(default_factory=dict)  # k -> mean recall
    session: dict = field(default_factory=dict)
    gated_turn: float = 0.0
    gated_session: float = 0.0
    gated_empty: float = 0.0
    latencies_ms: list = field(default_factory=list)

    def lines(self, name: str) -> list[str]:
        out = [f"{name}: {self.conversations} conversations, {self.entries} entries, "
               f"{self.questions} questions with evidence",
               "recall@k     " + "".join(f"{'@' + str(k):>8}" for k in self.ks)]
        out.append("turn         " + "".join(
            f"{self.turn[k]:8.3f}" if self.turn_level else f"{'-':>8}" for k in self.ks))
        out.append("session      " + "".join(f"{self.session[k]:8.3f}" for k in self.ks))
        gated_turn = f"turn {self.gated_turn:.3f}, " if self.turn_level else ""
        out.append(f"as injected (top {GATE_TOP_K}, score > {GATE_MIN_SCORE}): {gated_turn}"
                   f"session {self.gated_session:.3f}; nothing injected for {self.gated_empty:.1%} of questions")
        if self.latencies_ms:
            p50, p99 = np.percentile(self.latencies_ms, [50, 99])
            out.append(f"query latency: p50 {p50:.2f} ms, p99 {p99:.2f} ms (n={len(self.latencies_ms)})")
        return out


def _share(found: list, wanted: set) -> float:
    return len(wanted & set(found)) / len(wanted)


def evaluate(conversations: list[Conversation], *, tenant, ks: list[int], limit: int | None = None,
             progress=lambda message: None) -> Report:
    report = Report(ks=ks, conversations=len(conversations),
                    turn_level=all(c.turn_level for c in conversations))
    sums = {("turn", k): 0.0 for k in ks} | {("session", k): 0.0 for k in ks}
    gated = {"turn": 0.0, "session": 0.0, "empty": 0}
    total_questions = sum(len(c.questions) for c in conversations)
    if limit is not None:
        total_questions = min(total_questions, limit)
    step = max(1, total_questions // 20)
    query_terms("预热")  # load the segmenter once, outside the timed queries
    for number, conv in enumerate(conversations, start=1):
        agent = agent_create(tenant=tenant, name=conv.key[:200], provider_kind="local")
        actor = Actor(tenant=tenant, end_user=conv.key[:128], via_api_key=True)
        for start in range(0, len(conv.entries), BATCH):
            report.entries += recall_entries_import(tenant=tenant, agent=agent, end_user=actor.end_user,
                                                    rows=conv.entries[start:start + BATCH])
        progress(f"loaded {number}/{len(conversations)} conversations ({report.entries} entries)")
        for question in conv.questions:
            if report.questions == total_questions:
                break
            began = time.perf_counter()
            found = recall_search(actor=actor, agent=agent, query=question.text, limit=max(ks), min_score=0.0)
            report.latencies_ms.append((time.perf_counter() - began) * 1000)
            ranked = [entry.run_ref for entry, _ in found]
            for k in ks:
                sums[("turn", k)] += _share(ranked[:k], question.evidence)
                sums[("session", k)] += _share({conv.session_of[r] for r in ranked[:k]}, question.sessions)
            injected = [entry.run_ref for entry, score in found[:GATE_TOP_K] if score > GATE_MIN_SCORE]
            gated["turn"] += _share(injected, question.evidence)
            gated["session"] += _share({conv.session_of[r] for r in injected}, question.sessions)
            gated["empty"] += not injected
            report.questions += 1
            if report.questions % step == 0:
                progress(f"asked {report.questions}/{total_questions} questions")
        # Done with this conversation: its entries and index go, so the database holds
        # one conversation at a time (LongMemEval repeats its haystacks 500 times).
        agent.delete()
    n = max(1, report.questions)
    report.turn = {k: sums[("turn", k)] / n for k in ks}
    report.session = {k: sums[("session", k)] / n for k in ks}
    report.gated_turn, report.gated_session = gated["turn"] / n, gated["session"] / n
    report.gated_empty = gated["empty"] / n
    return report
