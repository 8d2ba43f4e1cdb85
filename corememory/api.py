"""L2 core memory endpoints: thin over the services, scoped to school and owner."""

from ninja import Query, Router, Schema, Status

from agents.auth import actor_of
from agents.schemas import ErrorOut
from agents.selectors import agent_get_for_tenant
from corememory import services
from corememory.schemas import CandidateOut, ConfirmIn, ConfirmOut, FactIn, FactOut, MemoryOut
from corememory.selectors import candidate_get_for_actor, candidates_for_actor, fact_get_for_actor, facts_for_actor

router = Router(tags=["core memory"])

ERRORS = {400: ErrorOut, 401: ErrorOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut}


class OwnerQuery(Schema):
    user: str | None = None


@router.get("/agents/{agent_id}/memory", response={200: MemoryOut, **ERRORS},
            summary="Confirmed facts and pending candidates")
def get_memory(request, agent_id: str, owner: Query[OwnerQuery]):
    actor = actor_of(request, owner.user)
    agent = agent_get_for_tenant(tenant=actor.tenant, agent_id=agent_id)
    return MemoryOut(
        confirmed=[FactOut.from_fact(f) for f in facts_for_actor(actor=actor, agent=agent)],
        pending=[CandidateOut.from_candidate(c) for c in candidates_for_actor(actor=actor, agent=agent)],
        limit=services.MAX_CONFIRMED,
    )


@router.post("/memory/candidates/{candidate_id}/confirm", response={200: ConfirmOut, **ERRORS},
             summary="Confirm a candidate (optionally with edited text)",
             description="The response lists `evicted` facts when the limit was reached.")
def confirm_candidate(request, candidate_id: str, owner: Query[OwnerQuery], payload: ConfirmIn = None):
    actor = actor_of(request, (payload and payload.user) or owner.user)
    candidate = candidate_get_for_actor(actor=actor, candidate_id=candidate_id)
    result = services.candidate_confirm(tenant=actor.tenant, candidate=candidate,
                                        text=payload.text if payload else None, confirmed_by=actor.user)
    return ConfirmOut.from_result(result, services.confirm_message(result))


@router.delete("/memory/candidates/{candidate_id}", response={204: None, **ERRORS}, summary="Delete a candidate")
def delete_candidate(request, candidate_id: str, owner: Query[OwnerQuery]):
    actor = actor_of(request, owner.user)
    candidate = candidate_get_for_actor(actor=actor, candidate_id=candidate_id)
    services.candidate_delete(tenant=actor.tenant, candidate=candidate)
    return Status(204, None)


@router.post("/agents/{agent_id}/memory/facts", response={201: ConfirmOut, **ERRORS},
             summary="Add a fact by hand")
def add_fact(request, agent_id: str, payload: FactIn, owner: Query[OwnerQuery]):
    actor = actor_of(request, payload.user or owner.user)
    agent = agent_get_for_tenant(tenant=actor.tenant, agent_id=agent_id)
    result = services.fact_add(actor=actor, agent=agent, text=payload.text)
    return Status(201, ConfirmOut.from_result(result, services.confirm_message(result)))


@router.patch("/memory/facts/{fact_id}", response={200: FactOut, **ERRORS}, summary="Edit a fact")
def edit_fact(request, fact_id: str, payload: FactIn, owner: Query[OwnerQuery]):
    actor = actor_of(request, payload.user or owner.user)
    fact = fact_get_for_actor(actor=actor, fact_id=fact_id)
    return FactOut.from_fact(services.fact_update(tenant=actor.tenant, fact=fact, text=payload.text))


@router.delete("/memory/facts/{fact_id}", response={204: None, **ERRORS}, summary="Delete a fact")
def delete_fact(request, fact_id: str, owner: Query[OwnerQuery]):
    actor = actor_of(request, owner.user)
    fact = fact_get_for_actor(actor=actor, fact_id=fact_id)
    services.fact_delete(tenant=actor.tenant, fact=fact)
    return Status(204, None)
