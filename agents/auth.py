"""API authentication: a per-school key in X-API-Key, or a logged-in teacher's session
(the pages call the same API; CSRF is enforced for session auth).

A request that carries X-API-Key is an API client's: a wrong key is 401 `unauthorized`
on every method, whatever cookies ride along. A request without a key and without a
logged-in session is 401 too: the CSRF check belongs to session auth only, so it runs
only when there is a session to protect (otherwise a POST with no key or a wrong key
answered 403 "CSRF check Failed")."""

from ninja.security import APIKeyHeader, SessionAuth

from agents.actor import Actor
from core.errors import AppError
from agents.services import api_key_authenticate


class SchoolApiKey(APIKeyHeader):
    param_name = "X-API-Key"

    def authenticate(self, request, key):
        tenant = api_key_authenticate(key)
        if tenant is None:
            return None
        return Actor(tenant=tenant, via_api_key=True)


class TeacherSession(SessionAuth):
    def _get_key(self, request):
        if SchoolApiKey.param_name in request.headers or not request.user.is_authenticated:
            return None  # no session to protect: not ours, and no CSRF check to fail
        return super()._get_key(request)

    def authenticate(self, request, key):
        if key is None:
            return None
        user = super().authenticate(request, key)
        if user is None or user.tenant_id is None:
            return None
        return Actor(tenant=user.tenant, user=user)


api_auth = [SchoolApiKey(), TeacherSession()]


def actor_of(request, *end_users: str | None) -> Actor:
    """The acting owner: API clients may narrow to an end user; teachers are themselves.

    `end_users` are the `user` values the operation takes (the query's `?user=`, a body's
    `user`). `user` is never silently ignored: a `?user=` the operation does not take is
    422 `user_not_accepted`; two different values are 422 `invalid_user`;
    a teacher's session, which always acts as that teacher, refuses any `user`.
    An end user is an API client's opaque id, never a teacher account: `user=wang` is
    not the teacher who logs in as `wang`.
    """
    given = {u for u in end_users if u is not None}
    query_user = request.GET.get("user")
    if query_user is not None and query_user not in end_users:
        raise AppError("user_not_accepted", "this operation takes no ?user= (or it disagrees with the body)",
                       status=422)
    if len(given) > 1:
        raise AppError("invalid_user", "the query and the body name different users", status=422)
    end_user = given.pop() if given else None
    if end_user is not None and not request.auth.via_api_key:
        raise AppError("user_not_accepted", "a teacher's session acts as that teacher", status=422)
    return request.auth.with_end_user(end_user)
