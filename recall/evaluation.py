"""recall_eval: memory benchmarks through the real recall path.

Each conversation becomes its own agent and owner; each dialogue turn (LoCoMo), each
session (LongMemEval) or each memory (our dev-set JSONL) a recall entry with its
original date; every question is asked through `recall_search`, the selector the recall
layer uses, with the layer's own gate (the agent's `recall_top_k` and
`recall_min_score`). Questions without evidence (negatives) are asked too: the gate must
inject nothing for them, and the report says how often it injected something anyway.

The dev-set JSONL (bench/data/recall_dev_*.jsonl) has one object per line:

    {"type": "memory", "id", "user", "ts", "input", "summary"}
    {"type": "query",  "id", "user", "ts", "query", "relevant": [memory ids of that user]}

an empty `relevant` marks a negative.
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
from search.engine import warm_up

BATCH = 1000


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
            if not evidence:  # no evidence at all: a negative
                out.questions.append(Question(qa["question"], set(), set()))
                continue
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
        if evidence or not item.get("answer_session_ids"):
            out.questions.append(Question(item["question"], evidence, evidence))
        conversations.append(out)
    return conversations


def _devset_time(value, line_number: int) -> datetime:
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError as exc:
        raise ValueError(f"line {line_number}: ts {value!r} is not ISO 8601") from exc
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment)


def load_devset(rows) -> list[Conversation]:
    """Our dev-set JSONL, already parsed (one dict per line): one conversation per user."""
    by_user: dict[str, Conversation] = {}
    queries = []
    for number, row in enumerate(rows, start=1):
        kind, user = row["type"], str(row["user"])
        conv = by_user.setdefault(user, Conversation(key=f"devset-{user}"))
        if kind == "memory":
            ref = str(row["id"])
            conv.entries.append({"run_id": ref, "ts": _devset_time(row["ts"], number),
                                 "input": str(row["input"]), "summary": str(row.get("summary") or "")})
            conv.session_of[ref] = ref
        elif kind == "query":
            queries.append((conv, row))
        else:
            raise ValueError(f"line {number}: type must be memory or query, got {kind!r}")
    for conv, row in queries:
        relevant = {str(ref) for ref in row.get("relevant") or []}
        unknown = relevant - set(conv.session_of)
        if unknown:
            raise ValueError(f"query {row['id']}: relevant {sorted(unknown)} are not memories of {row['user']}")
        conv.questions.append(Question(str(row["query"]), relevant, set(relevant)))
    return list(by_user.values())


LOADERS = {"locomo": load_locomo, "longmemeval": load_longmemeval, "devset": load_devset}
#: formats read as JSON lines rather than one JSON document
JSONL_FORMATS = {"devset"}


@dataclass
class Report:
    ks: list
    mode: str = ""  # "dense on" / "dense off" when a run compares both
    conversations: int = 0
    entries: int = 0
    questions: int = 0  # with evidence
    negatives: int = 0  # without evidence
    turn_level: bool = True
    gate: str = ""
    turn: dict = field(default_factory=dict)  # k -> mean recall
    session: dict = field(default_factory=dict)
    mrr: float = 0.0
    gated_turn: float = 0.0
    gated_session: float = 0.0
    gated_hit: float = 0.0  # share of questions with evidence for which a relevant entry was injected
    gated_empty: float = 0.0
    negatives_injected: float = 0.0  # share of questions without evidence for which anything was injected
    latencies_ms: list = field(default_factory=list)
    # threshold -> (relevant injected, something injected on negatives): what another
    # recall_min_score would trade
    gate_curve: dict = field(default_factory=dict)

    def lines(self, name: str) -> list[str]:
        mode = f" [{self.mode}]" if self.mode else ""
        out = [f"{name}{mode}: {self.conversations} conversations, {self.entries} entries, "
               f"{self.questions} questions with evidence, {self.negatives} without",
               "recall@k     " + "".join(f"{'@' + str(k):>8}" for k in self.ks)]
        out.append("turn         " + "".join(
            f"{self.turn[k]:8.3f}" if self.turn_level else f"{'-':>8}" for k in self.ks))
        out.append("session      " + "".join(f"{self.session[k]:8.3f}" for k in self.ks))
        out.append(f"MRR {self.mrr:.3f}")
        gated_turn = f"turn {self.gated_turn:.3f}, " if self.turn_level else ""
        out.append(f"as injected ({self.gate}): {gated_turn}"
                   f"session {self.gated_session:.3f}; a relevant entry injected for {self.gated_hit:.1%} of "
                   f"questions with evidence; nothing injected for {self.gated_empty:.1%} of them")
        out.append(f"without evidence: something injected for {self.negatives_injected:.1%} of "
                   f"{self.negatives} questions")
        if self.gate_curve:
            out.append("other thresholds (relevant injected / something injected on negatives): " + ", ".join(
                f"{t:.2f}: {hit:.0%} / {neg:.0%}" for t, (hit, neg) in sorted(self.gate_curve.items())))
        if self.latencies_ms:
            p50, p99 = np.percentile(self.latencies_ms, [50, 99])
            out.append(f"query latency: p50 {p50:.2f} ms, p99 {p99:.2f} ms (n={len(self.latencies_ms)})")
        return out


def _share(found: list, wanted: set) -> float:
    return len(wanted & set(found)) / len(wanted)


CURVE_THRESHOLDS = (0.1, 0.15, 0.16, 0.17, 0.18, 0.19, 0.2, 0.25, 0.3, 0.4)


class _Tally:
    def __init__(self, ks):
        self.ks = ks
        self.sums = {("turn", k): 0.0 for k in ks} | {("session", k): 0.0 for k in ks}
        self.rr = 0.0
        self.gated = {"turn": 0.0, "session": 0.0, "hit": 0, "empty": 0, "negatives": 0}
        self.questions = self.negatives = 0
        self.latencies_ms = []
        self.curve = {t: [0, 0] for t in CURVE_THRESHOLDS}  # threshold -> [hits, negatives with something]

    def add(self, conv: Conversation, question: Question, found: list, gate_k: int, gate_min: float, ms: float):
        self.latencies_ms.append(ms)
        ranked = [entry.run_ref for entry, _ in found]
        # The layer's rule: the best `gate_k` of the hits scoring above `gate_min`.
        injected = [entry.run_ref for entry, score in found if score > gate_min][:gate_k]
        for threshold, counts in self.curve.items():
            passed = [entry.run_ref for entry, score in found if score > threshold][:gate_k]
            counts[0 if question.evidence else 1] += bool(question.evidence & set(passed)) if question.evidence \
                else bool(passed)
        if not question.evidence:
            self.negatives += 1
            self.gated["negatives"] += bool(injected)
            return
        self.questions += 1
        for k in self.ks:
            self.sums[("turn", k)] += _share(ranked[:k], question.evidence)
            self.sums[("session", k)] += _share({conv.session_of[r] for r in ranked[:k]}, question.sessions)
        first = next((i for i, ref in enumerate(ranked) if ref in question.evidence), None)
        self.rr += 0.0 if first is None else 1 / (first + 1)
        self.gated["turn"] += _share(injected, question.evidence)
        self.gated["session"] += _share({conv.session_of[r] for r in injected}, question.sessions)
        self.gated["hit"] += bool(question.evidence & set(injected))
        self.gated["empty"] += not injected

    def report(self, base: Report, mode: str) -> Report:
        n = max(1, self.questions)
        return Report(
            ks=self.ks, mode=mode, conversations=base.conversations, entries=base.entries, gate=base.gate,
            questions=self.questions, negatives=self.negatives, turn_level=base.turn_level,
            turn={k: self.sums[("turn", k)] / n for k in self.ks},
            session={k: self.sums[("session", k)] / n for k in self.ks},
            mrr=self.rr / n, gated_turn=self.gated["turn"] / n, gated_session=self.gated["session"] / n,
            gated_hit=self.gated["hit"] / n, gated_empty=self.gated["empty"] / n,
            negatives_injected=self.gated["negatives"] / max(1, self.negatives), latencies_ms=self.latencies_ms,
            gate_curve={t: (hits / n, negatives / max(1, self.negatives))
                        for t, (hits, negatives) in self.curve.items()},
        )


def evaluate(conversations: list[Conversation], *, tenant, ks: list[int], limit: int | None = None,
             dense_modes=(None,), progress=lambda message: None) -> list[Report]:
    """One report per entry of `dense_modes` (None: the configured default; True/False: dense
    retrieval on/off), all from one load of the entries."""
    base = Report(ks=ks, conversations=len(conversations), turn_level=all(c.turn_level for c in conversations))
    tallies = [_Tally(ks) for _ in dense_modes]
    total_questions = sum(len(c.questions) for c in conversations)
    if limit is not None:
        total_questions = min(total_questions, limit)
    step = max(1, total_questions // 20)
    asked = 0
    warm_up()  # load the segmenter and the embedding model once, outside the timed queries
    for number, conv in enumerate(conversations, start=1):
        agent = agent_create(tenant=tenant, name=conv.key[:200], provider_kind="local")
        gate_k, gate_min = agent.recall_top_k, agent.recall_min_score
        base.gate = f"top {gate_k}, score > {gate_min}"
        actor = Actor(tenant=tenant, end_user=conv.key[:128], via_api_key=True)
        for start in range(0, len(conv.entries), BATCH):
            base.entries += recall_entries_import(tenant=tenant, agent=agent, end_user=actor.end_user,
                                                  rows=conv.entries[start:start + BATCH])
        progress(f"loaded {number}/{len(conversations)} conversations ({base.entries} entries)")
        for question in conv.questions:
            if asked == total_questions:
                break
            for tally, dense in zip(tallies, dense_modes):
                began = time.perf_counter()
                found = recall_search(actor=actor, agent=agent, query=question.text, limit=max(ks + [gate_k]),
                                      min_score=0.0, dense=dense)
                tally.add(conv, question, found, gate_k, gate_min, (time.perf_counter() - began) * 1000)
            asked += 1
            if asked % step == 0:
                progress(f"asked {asked}/{total_questions} questions")
        # Done with this conversation: its entries and index go, so the database holds
        # one conversation at a time (LongMemEval repeats its haystacks 500 times).
        agent.delete()
    names = {None: "", True: "dense on", False: "dense off"}
    return [tally.report(base, names[dense] if len(dense_modes) > 1 else "") for tally, dense in zip(tallies, dense_modes)]
