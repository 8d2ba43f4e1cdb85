"""Writes of L2 core memory. The API, the admin, the pages and the memory job call these.

Two rules hold here and nowhere else:

- A CoreFact is created in exactly one function, `_fact_create`, called only by
  `candidate_confirm` (a person confirms) and `fact_add` (a person types a fact). The
  memory job only proposes candidates. tests/corememory/test_no_auto_confirm.py keeps
  it that way.
- Red line 2 (core.redline) runs before anything is stored: on extracted
  candidates (rejections are counted on the MemoryOp, the text is dropped), on a
  confirm, on a typed fact and on an edit (400 `sensitive_content` naming the kind).
"""

import logging
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext

from core.errors import AppError, NotFound
from core.text import validate_text
from agents.layers import StepResult
from agents.memory_llm import memory_complete, memory_model_available
from agents.outbox import lease_live_until
from agents.models import Agent, MemoryOp, Run
from core import redline, sql
from corememory.extraction import MAX_TOKENS, extraction_messages, parse_facts
from corememory.models import MAX_FACT_CHARS, CoreCandidate, CoreExtraction, CoreFact

log = logging.getLogger(__name__)

MAX_CONFIRMED = 30  # seed §4: the confirmed area holds at most 30 facts per agent and owner
MAX_PENDING = 50  # the pending area drops its least confident candidates beyond this
MAX_CANDIDATES_PER_RUN = 5
REPEAT_BOOST = 0.1  # a fact proposed again is a little more likely worth keeping


# --- text -------------------------------------------------------------------------------

_NOT_WORD = re.compile(r"[\W_]+")


def normalize_fact(text: str) -> str:
    """The fact folded for duplicate detection: width (NFKC), case, punctuation, whitespace."""
    folded = unicodedata.normalize("NFKC", text or "").casefold()
    return _NOT_WORD.sub("", folded)[:MAX_FACT_CHARS]


def sensitive_content_error(verdict: redline.Verdict) -> AppError:
    """A 400 that names the kind of data found, never the text."""
    labels = verdict.labels()
    return AppError(
        "sensitive_content",
        gettext("内容含有敏感个人信息（%(kinds)s），不能保存为记忆。") % {"kinds": labels},
        status=400,
        kind=verdict.kind,
        kinds=list(verdict.kinds),
    )


def fact_text_clean(text) -> str:
    """A fact as it will be stored: one line, not empty, not too long, past red line 2."""
    if not isinstance(text, str):
        raise AppError("fact_empty", gettext("事实内容不能为空。"), status=422)
    clean = " ".join(validate_text(text, field="text").split())
    if not clean:
        raise AppError("fact_empty", gettext("事实内容不能为空。"), status=422)
    if len(clean) > MAX_FACT_CHARS:
        raise AppError("fact_too_long", gettext("事实内容最多 %(n)d 个字符。") % {"n": MAX_FACT_CHARS}, status=422)
    verdict = redline.screen(clean)
    if verdict:
        raise sensitive_content_error(verdict)
    return clean


# --- scope ------------------------------------------------------------------------------

def _scope_of(row) -> dict:
    """The owner columns of a run, candidate or fact: which σ.core it belongs to."""
    return {"tenant_id": row.tenant_id, "agent_id": row.agent_id, "owner_id": row.owner_id, "end_user": row.end_user}


def _actor_scope(*, actor, agent) -> dict:
    return {**actor.owner_columns(), "agent_id": agent.pk}


def _lock_agent(agent_id: str) -> None:
    # Serialises confirms for one agent on PostgreSQL so two of them can't both see 30
    # facts and both skip the eviction (SQLite's IMMEDIATE mode already serialises).
    list(Agent.objects.select_for_update().filter(pk=agent_id).values_list("pk", flat=True))


# --- confirm, add, edit, delete (a person) ---------------------------------------------

@dataclass
class ConfirmResult:
    fact: CoreFact
    evicted: list[CoreFact] = field(default_factory=list)
    #: the text was already a confirmed fact; nothing new was stored
    already_confirmed: bool = False


def _fact_create(*, scope: dict, text: str, origin: str, confirmed_by, via: str, source_run_id=None) -> ConfirmResult:
    """The one place a CoreFact is created. Call it inside transaction.atomic after _lock_agent."""
    normalized = normalize_fact(text)
    existing = CoreFact.objects.filter(**scope, normalized=normalized).first()
    if existing is not None:
        CoreCandidate.objects.filter(**scope, normalized=normalized).delete()
        return ConfirmResult(fact=existing, already_confirmed=True)
    now = timezone.now()
    fact = CoreFact.objects.create(
        **scope,
        text=text,
        normalized=normalized,
        origin=origin,
        source_run_id=source_run_id,
        confirmed_by=confirmed_by,
        confirmed_via=via,
        confirmed_at=now,
        last_used=now,
        created_at=now,
        updated_at=now,
    )
    CoreCandidate.objects.filter(**scope, normalized=normalized).delete()
    # Full: the least recently used facts go (never the one just confirmed).
    others = CoreFact.objects.filter(**scope).exclude(pk=fact.pk).order_by("last_used", "created_at")
    excess = others.count() + 1 - MAX_CONFIRMED
    evicted = list(others[:excess]) if excess > 0 else []
    if evicted:
        CoreFact.objects.filter(pk__in=[f.pk for f in evicted]).delete()
    return ConfirmResult(fact=fact, evicted=evicted)


def confirm_message(result: ConfirmResult) -> str:
    """What to tell the person who confirmed (or typed) a fact, evictions included."""
    if result.already_confirmed:
        return gettext("这条事实已在核心记忆中。")
    if not result.evicted:
        return gettext("已加入核心记忆。")
    return gettext("已加入核心记忆。核心记忆最多 %(limit)d 条，已淘汰最久未用的 %(n)d 条：%(texts)s") % {
        "limit": MAX_CONFIRMED,
        "n": len(result.evicted),
        "texts": "；".join(f"「{fact.text}」" for fact in result.evicted),
    }


def candidate_confirm(*, tenant, candidate: CoreCandidate, text: str | None = None, confirmed_by=None,
                      via: str = CoreFact.Via.API) -> ConfirmResult:
    """A person confirms a candidate (optionally with edited text): it becomes a fact.

    The text passes red line 2 again (an edit may add something; the term list may have
    grown since the candidate was stored). Returns the fact and whatever the capacity
    limit evicted, so the caller can tell the person.
    """
    if candidate.tenant_id != tenant.pk:
        raise NotFound("candidate")
    clean = fact_text_clean(candidate.text if text is None else text)
    with transaction.atomic():
        _lock_agent(candidate.agent_id)
        current = CoreCandidate.objects.filter(pk=candidate.pk, tenant=tenant).first()
        if current is None:  # deleted or confirmed meanwhile (a double click)
            raise NotFound("candidate")
        result = _fact_create(scope=_scope_of(current), text=clean, origin=CoreFact.Origin.CANDIDATE,
                              confirmed_by=confirmed_by, via=via, source_run_id=current.source_run_id)
        CoreCandidate.objects.filter(pk=current.pk).delete()
    return result


def fact_add(*, actor, agent, text: str, via: str = CoreFact.Via.API) -> ConfirmResult:
    """A person types a fact for their own memory of `agent`."""
    if agent.tenant_id != actor.tenant.pk:
        raise NotFound("agent")
    clean = fact_text_clean(text)
    with transaction.atomic():
        _lock_agent(agent.pk)
        return _fact_create(scope=_actor_scope(actor=actor, agent=agent), text=clean, origin=CoreFact.Origin.MANUAL,
                            confirmed_by=actor.user, via=via)


def fact_edit_clean(*, fact: CoreFact, text) -> str:
    """The edited text of `fact`, checked like a new one and against its siblings."""
    clean = fact_text_clean(text)
    normalized = normalize_fact(clean)
    if CoreFact.objects.filter(**_scope_of(fact), normalized=normalized).exclude(pk=fact.pk).exists():
        raise AppError("duplicate_fact", gettext("已有一条相同的事实。"), status=409)
    return clean


def fact_update(*, tenant, fact: CoreFact, text: str) -> CoreFact:
    if fact.tenant_id != tenant.pk:
        raise NotFound("fact")
    with transaction.atomic():
        clean = fact_edit_clean(fact=fact, text=text)
        normalized = normalize_fact(clean)
        now = timezone.now()
        updated = CoreFact.objects.filter(pk=fact.pk, tenant=tenant).update(text=clean, normalized=normalized,
                                                                             updated_at=now)
    if not updated:
        raise NotFound("fact")
    fact.text, fact.normalized, fact.updated_at = clean, normalized, now
    return fact


def facts_touch(*, fact_ids: list[str]) -> None:
    """Injection touches the facts' last_used (seed §4), in one UPDATE for all of them.
    On every run: hand-written SQL (core/sql.py). The ids come from the owner's own read."""
    if not fact_ids:
        return
    table = CoreFact._meta.db_table
    sql.execute(f'UPDATE "{table}" SET "last_used" = %s WHERE "id" IN ({sql.placeholders(len(fact_ids))})',
                [sql.prep(CoreFact, "last_used", timezone.now()), *fact_ids])


def fact_delete(*, tenant, fact: CoreFact) -> None:
    if not CoreFact.objects.filter(pk=fact.pk, tenant=tenant).delete()[0]:
        raise NotFound("fact")


def candidate_delete(*, tenant, candidate: CoreCandidate) -> None:
    if not CoreCandidate.objects.filter(pk=candidate.pk, tenant=tenant).delete()[0]:
        raise NotFound("candidate")


@dataclass
class BulkConfirmResult:
    """What a bulk confirm did, for the admin's message."""

    confirmed: int = 0
    already_confirmed: int = 0
    refused: Counter = field(default_factory=Counter)  # sensitive kind (or error code) -> count
    evicted: list[CoreFact] = field(default_factory=list)


def candidates_confirm(*, tenant_of, candidates, confirmed_by=None, via: str = CoreFact.Via.ADMIN) -> BulkConfirmResult:
    """Confirm many candidates, one by one. `tenant_of(candidate)` is the acting school."""
    result = BulkConfirmResult()
    for candidate in candidates:
        try:
            one = candidate_confirm(tenant=tenant_of(candidate), candidate=candidate, confirmed_by=confirmed_by,
                                    via=via)
        except AppError as exc:
            result.refused[exc.extra.get("kind") or exc.code] += 1
            continue
        if one.already_confirmed:
            result.already_confirmed += 1
        else:
            result.confirmed += 1
        evicted_now = {f.pk for f in one.evicted}
        # A fact confirmed earlier in this batch and evicted later is still reported once.
        result.evicted = [f for f in result.evicted if f.pk not in evicted_now] + one.evicted
    return result


def candidates_delete(*, tenant_of, candidates) -> int:
    deleted = 0
    for candidate in candidates:
        try:
            candidate_delete(tenant=tenant_of(candidate), candidate=candidate)
        except AppError:
            continue
        deleted += 1
    return deleted


# --- the memory job: propose candidates (never confirm) --------------------------------

def _claim_live_until(claim: CoreExtraction):
    """Until when another job's claim stays live. A claim made under a memory job lease
    lives as long as that lease (a dead worker's claim is free once its lease ran out);
    one made outside a job, as long as the job timeout."""
    if claim.lease_token:
        return lease_live_until(claim.run_id, claim.lease_token)
    until = claim.claimed_at + timedelta(seconds=int(settings.Q_CLUSTER.get("timeout") or 600))
    return until if until > timezone.now() else None


def _claim_extraction(run: Run) -> StepResult | None:
    """Claim the run's extraction. None: go ahead. Otherwise what to report instead:
    done (finished before), or retry once the live claim of another job runs out."""
    now = timezone.now()
    token = getattr(run, "memory_lease_token", "") or ""
    try:
        with transaction.atomic():
            CoreExtraction.objects.create(run=run, claimed_at=now, lease_token=token)
        return None
    except IntegrityError:
        pass
    claim = CoreExtraction.objects.filter(run=run).first()
    if claim is None:  # deleted under us: try again in a moment
        return StepResult.retry_later(now, note="claim vanished")
    if claim.finished_at is not None:
        return StepResult.done(claim.outcome or "finished")
    live_until = _claim_live_until(claim)
    if live_until is not None:
        return StepResult.retry_later(live_until, note="claimed")
    taken = CoreExtraction.objects.filter(run=run, finished_at__isnull=True, claimed_at=claim.claimed_at,
                                          lease_token=claim.lease_token).update(claimed_at=now, lease_token=token)
    return None if taken else StepResult.retry_later(now, note="claim raced")


def _finish_extraction(run: Run, outcome: str, *, proposed: int = 0, rejected: int = 0) -> StepResult:
    CoreExtraction.objects.filter(run=run).update(finished_at=timezone.now(), outcome=outcome, proposed=proposed,
                                                  rejected=rejected)
    return StepResult.done(outcome)


def candidates_extract_for_run(*, run: Run) -> StepResult:
    """Ask the agent's own provider for facts worth keeping and store them as candidates.

    Idempotent (a claim per run); a failed run is not mined (skipped); a claim another
    job still holds is retried after it runs out, never dropped; nothing is mined for an
    agent with no provider fit for memory work (skipped); a sensitive proposal
    is counted on the MemoryOp and dropped, its text stored and logged nowhere. A model
    failure is an outcome (provider_failed), not a retry: the exchange stays in recall.
    """
    if run.status != Run.Status.COMPLETED:
        return StepResult.skipped("not completed")
    if not memory_model_available(run.agent):
        # No model fit to judge what is worth keeping (the built-in demo model): propose
        # nothing rather than fill 待确认 with junk, and leave the CPU to the chat.
        return StepResult.skipped("no memory model")
    instead = _claim_extraction(run)
    if instead is not None:
        return instead
    messages = extraction_messages(input=run.input, output=run.output, language=run.agent.language)
    reply = memory_complete(agent=run.agent, kind="extract", messages=messages, run=run, max_tokens=MAX_TOKENS)
    if reply is None:
        return _finish_extraction(run, CoreExtraction.Outcome.PROVIDER_FAILED)
    proposals = parse_facts(reply.text)
    if proposals is None:
        MemoryOp.objects.filter(pk=reply.op.pk).update(status=MemoryOp.Status.FAILED, error_code="unparsable")
        log.info("extract %s: the answer could not be parsed", run.pk)
        return _finish_extraction(run, CoreExtraction.Outcome.UNPARSABLE)
    proposed, rejected_kinds, rejected = 0, Counter(), 0
    for proposal in proposals:
        text = " ".join(proposal.text.split())
        verdict = redline.screen(text)
        if verdict:
            rejected += 1
            rejected_kinds.update(verdict.kinds)
            continue
        if not text or len(text) > MAX_FACT_CHARS or proposed >= MAX_CANDIDATES_PER_RUN:
            continue
        proposed += _candidate_propose(run=run, text=text, confidence=proposal.confidence)
    if rejected:
        MemoryOp.objects.filter(pk=reply.op.pk).update(rejected_count=rejected)
    # Kinds and counts only: the rejected text goes nowhere, not even the log.
    log.info("extract %s: %d proposed, %d refused by red line 2 %s", run.pk, proposed, rejected,
             dict(rejected_kinds) if rejected_kinds else "")
    outcome = CoreExtraction.Outcome.PROPOSED if proposed else CoreExtraction.Outcome.NONE
    return _finish_extraction(run, outcome, proposed=proposed, rejected=rejected)


def _candidate_propose(*, run: Run, text: str, confidence: float) -> int:
    """Store one clean proposal; a duplicate of a confirmed fact is dropped, a duplicate
    of a pending candidate raises its confidence. Returns 1 when a candidate was added."""
    scope = _scope_of(run)
    normalized = normalize_fact(text)
    if not normalized:
        return 0
    now = timezone.now()
    with transaction.atomic():
        if CoreFact.objects.filter(**scope, normalized=normalized).exists():
            return 0
        existing = CoreCandidate.objects.select_for_update().filter(**scope, normalized=normalized).first()
        if existing is None:
            try:
                with transaction.atomic():
                    CoreCandidate.objects.create(**scope, text=text, normalized=normalized, confidence=confidence,
                                                 source_run=run, created_at=now, updated_at=now)
            except IntegrityError:
                # Another worker added the same candidate since we looked (the database's
                # uniq_corecand_scope_text said so): it becomes a repeat of theirs.
                existing = CoreCandidate.objects.select_for_update().filter(**scope, normalized=normalized).first()
                if existing is None:
                    return 0
        if existing is not None:
            raised = min(1.0, max(existing.confidence, confidence) + REPEAT_BOOST)
            CoreCandidate.objects.filter(pk=existing.pk).update(confidence=raised, seen_count=F("seen_count") + 1,
                                                                updated_at=now)
            return 0
        overflow = CoreCandidate.objects.filter(**scope).order_by("-confidence", "-created_at")[MAX_PENDING:]
        overflow_ids = list(overflow.values_list("pk", flat=True))
        if overflow_ids:
            CoreCandidate.objects.filter(pk__in=overflow_ids).delete()
    return 1
