from core.errors import NotFound
from agents.models import Agent, Run


def agent_get_for_tenant(*, tenant, agent_id: str) -> Agent:
    agent = Agent.objects.filter(tenant=tenant, pk=agent_id).select_related("tenant").first()
    if agent is None:
        raise NotFound("agent")
    return agent


def run_get_for_actor(*, actor, run_id: str) -> Run:
    """A run of this school and owner; another owner's run is indistinguishable from none."""
    run = Run.objects.filter(actor.owner_q(), pk=run_id).select_related("agent", "thread").first()
    if run is None:
        raise NotFound("run")
    return run


def agents_for_tenant(*, tenant):
    return Agent.objects.filter(tenant=tenant).order_by("name")
