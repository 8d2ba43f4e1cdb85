from datetime import datetime

from ninja import Field, Schema

from core.text import SafeText
from corememory.models import MAX_FACT_CHARS

USER_FIELD = Field(None, max_length=128, description="API clients: the end user whose memory this is.")

#: how much of the teacher's request a fact's provenance quotes
SOURCE_EXCERPT_CHARS = 60


class Provenance(Schema):
    """Where a fact or candidate came from: the exchange it was drawn from (same owner)."""

    source_thread: str | None = Field(None, description="The conversation of `source_run`.")
    source_at: datetime | None = Field(None, description="When that exchange happened.")
    source_excerpt: str = Field("", description="The start of the request in that exchange.")

    @staticmethod
    def of(row) -> dict:
        run = row.source_run if row.source_run_id else None
        if run is None:
            return {}
        excerpt = " ".join(run.input.split())
        if len(excerpt) > SOURCE_EXCERPT_CHARS:
            excerpt = excerpt[: SOURCE_EXCERPT_CHARS - 1] + "…"
        return {"source_thread": run.thread_id, "source_at": run.created_at, "source_excerpt": excerpt}


class FactOut(Provenance):
    id: str
    text: str
    last_used: datetime
    created_at: datetime
    confirmed_at: datetime
    confirmed_by: str | None = Field(None, description="Username of the person who confirmed or typed it.")
    confirmed_by_name: str | None = Field(None, description="Their name as the pages show it.")
    confirmed_via: str
    origin: str = Field(..., description="`candidate` (confirmed from a candidate) or `manual` (typed by a person).")
    source_run: str | None = None

    @staticmethod
    def from_fact(fact) -> "FactOut":
        return FactOut(
            id=fact.pk,
            text=fact.text,
            last_used=fact.last_used,
            created_at=fact.created_at,
            confirmed_at=fact.confirmed_at,
            confirmed_by=fact.confirmed_by.get_username() if fact.confirmed_by_id else None,
            confirmed_by_name=(fact.confirmed_by.get_full_name() or fact.confirmed_by.get_username())
            if fact.confirmed_by_id else None,
            confirmed_via=fact.confirmed_via,
            origin=fact.origin,
            source_run=fact.source_run_id,
            **Provenance.of(fact),
        )


class CandidateOut(Provenance):
    id: str
    text: str
    confidence: float
    source_run: str | None = None
    created_at: datetime
    seen_count: int

    @staticmethod
    def from_candidate(candidate) -> "CandidateOut":
        return CandidateOut(
            id=candidate.pk,
            text=candidate.text,
            confidence=round(candidate.confidence, 3),
            source_run=candidate.source_run_id,
            created_at=candidate.created_at,
            seen_count=candidate.seen_count,
            **Provenance.of(candidate),
        )


class MemoryOut(Schema):
    confirmed: list[FactOut]
    pending: list[CandidateOut] = Field(..., description="Sorted by confidence, highest first.")
    limit: int = Field(..., description="Most confirmed facts kept; confirming beyond it evicts the least recently used.")


class ConfirmIn(Schema):
    text: SafeText | None = Field(None, max_length=MAX_FACT_CHARS * 2, description="Edited text to confirm instead.")
    user: SafeText | None = USER_FIELD


class FactIn(Schema):
    text: SafeText = Field(..., max_length=MAX_FACT_CHARS * 2)
    user: SafeText | None = USER_FIELD


class ConfirmOut(Schema):
    fact: FactOut
    evicted: list[FactOut] = Field(..., description="Facts removed to stay within the limit (least recently used).")
    already_confirmed: bool = Field(..., description="The text was already a confirmed fact; nothing new was stored.")
    message: str = ""

    @staticmethod
    def from_result(result, message: str = "") -> "ConfirmOut":
        return ConfirmOut(
            fact=FactOut.from_fact(result.fact),
            evicted=[FactOut.from_fact(f) for f in result.evicted],
            already_confirmed=result.already_confirmed,
            message=message,
        )
