"""API authentication: a per-school key in X-API-Key, or a logged-in teacher's session
(the pages call the same API; CSRF is enforced for session auth)."""

from ninja.security import APIKeyHeader, SessionAuth

from agents.actor import Actor
from agents.services import api_key_authenticate


class SchoolApiKey(APIKeyHeader):
    param_name = "X-API-Key"

    def authenticate(self, request, key):
        tenant = api_key_authenticate(key)
        if tenant is None:
            return None
        return Actor(tenant=tenant, via_api_key=True)


class TeacherSession(SessionAuth):
    def authenticate(self, request, key):
        user = super().authenticate(request, key)
        if user is None or user.tenant_id is None:
            return None
        return Actor(tenant=user.tenant, user=user)


api_auth = [SchoolApiKey(), TeacherSession()]


def actor_of(request, end_user: str | None = None) -> Actor:
    """The acting owner: API clients may narrow to an end user; teachers are themselves."""
    return request.auth.with_end_user(end_user)
