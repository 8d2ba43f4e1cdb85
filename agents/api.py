from django.http import StreamingHttpResponse
from ninja import Query, Router, Schema

from agents.auth import actor_of
from agents.runner import run_stream, run_sync
from agents.schemas import ErrorOut, RunContextOut, RunIn, RunOut, RunReplyOut
from agents.selectors import agent_get_for_tenant, run_get_for_actor

router = Router(tags=["runs"])

ERRORS = {400: ErrorOut, 401: ErrorOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut}


class OwnerQuery(Schema):
    user: str | None = None


@router.post("/agents/{agent_id}/run", response={200: RunReplyOut, **ERRORS}, summary="Run an agent (sync)")
def run_agent(request, agent_id: str, payload: RunIn):
    actor = actor_of(request, payload.user)
    agent = agent_get_for_tenant(tenant=actor.tenant, agent_id=agent_id)
    run = run_sync(
        actor=actor,
        agent=agent,
        input=payload.input,
        thread_id=payload.thread_id,
        context=payload.context.dict() if payload.context else None,
    )
    return RunReplyOut(run_id=run.pk, thread_id=run.thread_id, status=run.status, output=run.output,
                       error_code=run.error_code)


@router.post(
    "/agents/{agent_id}/run/stream",
    response={200: None, **ERRORS},
    summary="Run an agent, streaming Server-Sent Events",
    description="Events: `started {run_id, thread_id}`, `delta {text}`, then `done {run_id, status, finish_reason}` "
                "(`finish_reason` \"length\": cut at the agent's max output tokens) or `error {code}`. "
                "Closing the stream after text arrived records the run as `stopped`, keeping that text.",
)
def run_agent_stream(request, agent_id: str, payload: RunIn):
    actor = actor_of(request, payload.user)
    agent = agent_get_for_tenant(tenant=actor.tenant, agent_id=agent_id)
    events = run_stream(
        actor=actor,
        agent=agent,
        input=payload.input,
        thread_id=payload.thread_id,
        context=payload.context.dict() if payload.context else None,
    )
    response = StreamingHttpResponse(events, content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


@router.get("/runs/{run_id}", response={200: RunOut, **ERRORS})
def get_run(request, run_id: str, owner: Query[OwnerQuery]):
    run = run_get_for_actor(actor=actor_of(request, owner.user), run_id=run_id)
    return RunOut.from_run(run)


@router.get("/runs/{run_id}/context", response={200: RunContextOut, **ERRORS},
            summary="What was sent to the model for this run")
def get_run_context(request, run_id: str, owner: Query[OwnerQuery]):
    run = run_get_for_actor(actor=actor_of(request, owner.user), run_id=run_id)
    context = run.context or {}
    return RunContextOut(
        run_id=run.pk,
        sections=context.get("sections", []),
        total_tokens=context.get("total_tokens", 0),
        total_budget=context.get("total_budget", run.agent.budget_total),
        messages=context.get("messages", []),
        fence_nonce=context.get("fence_nonce", ""),
    )
