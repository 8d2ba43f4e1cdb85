"""What the navigation bar needs on every teacher page: school, teacher, agents, the
current agent. Lazy, so pages that don't show the bar (the admin) pay nothing."""

from django.utils.functional import SimpleLazyObject


def _nav(request) -> dict:
    from web.views import current_agent, school_agents

    user = request.user
    return {
        "school": user.tenant,
        "teacher": user.get_full_name() or user.first_name or user.username,
        "agents": school_agents(request),
        "agent": current_agent(request),
    }


def nav(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or getattr(user, "tenant_id", None) is None:
        return {}
    return {"nav": SimpleLazyObject(lambda: _nav(request))}
