"""The one NinjaAPI: a router per app, one auth list, central error handlers."""

import logging

from django.http import Http404, JsonResponse
from ninja import NinjaAPI, Swagger
from ninja.renderers import JSONRenderer
from ninja.errors import AuthenticationError, HttpError, ValidationError

from agents.auth import api_auth
from core.errors import API_PREFIX, AppError, error_body
from core.text import INVALID_TEXT

log = logging.getLogger(__name__)

class Utf8JSONRenderer(JSONRenderer):
    """Chinese text as UTF-8, not \\u escapes: readable in curl and logs."""

    json_dumps_params = {"ensure_ascii": False}


api = NinjaAPI(
    renderer=Utf8JSONRenderer(),
    title="Teaching-assistant memory API",
    version="1.0.0",
    description=(
        "Agents that remember: thread, core facts, episodic recall and knowledge base. "
        "Authenticate with `X-API-Key`. Errors are JSON `{code, message}`: `code` is stable; `message` "
        "follows `Accept-Language` (zh-hans by default, en). `user` is an opaque end-user id, never a "
        "teacher account."
    ),
    auth=api_auth,
    docs_url="/docs",
    # Swagger UI from django-ninja's own static files (ninja is an installed app), and no
    # call to validator.swagger.io: the page works on a school network without Internet.
    docs=Swagger(settings={"validatorUrl": None}),
    urls_namespace="api",
)


def _error(request, status: int, code: str, **extra):
    return api.create_response(request, error_body(code, **extra), status=status)


@api.exception_handler(AppError)
def on_app_error(request, exc: AppError):
    return api.create_response(request, exc.as_body(), status=exc.status)


@api.exception_handler(ValidationError)
def on_validation_error(request, exc: ValidationError):
    errors = exc.errors
    # A body that is not JSON at all gets its own code.
    if any(e.get("type") == "json_invalid" or "JSON" in str(e.get("msg", "")) for e in errors if isinstance(e, dict)):
        return _error(request, 400, "invalid_json")
    # Text no database can store (core.text.SafeText; pydantic's own check catches lone
    # surrogates first): the same code as the services use.
    if any(isinstance(e, dict) and e.get("type") in (INVALID_TEXT, "string_unicode") for e in errors):
        return _error(request, 422, INVALID_TEXT, errors=_plain(errors))
    return _error(request, 422, "validation_error", errors=_plain(errors))


@api.exception_handler(AuthenticationError)
def on_auth_error(request, exc):
    return _error(request, 401, "unauthorized")


@api.exception_handler(Http404)
def on_not_found(request, exc):
    return _error(request, 404, "not_found")


@api.exception_handler(HttpError)
def on_http_error(request, exc: HttpError):
    if exc.status_code == 400 and "parse" in str(exc).lower():
        return _error(request, 400, "invalid_json")
    if exc.status_code == 403 and "csrf" in str(exc).lower():
        return _error(request, 403, "csrf_failed")
    code = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed"}
    return _error(request, exc.status_code, code.get(exc.status_code, "http_error"))


@api.exception_handler(Exception)
def on_unexpected(request, exc: Exception):
    log.exception("unhandled API error")
    return _error(request, 500, "internal_error")


class MethodNotAllowedAsJson:
    """django-ninja answers a method a path does not serve with a plain-text 405 that no
    exception handler sees; API clients get JSON with a stable code like every other error."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (response.status_code == 405 and request.path.startswith(API_PREFIX)
                and not response.get("Content-Type", "").startswith("application/json")):
            allowed = response.get("Allow", "")
            response = JsonResponse(error_body("method_not_allowed"), status=405,
                                    json_dumps_params={"ensure_ascii": False})
            response["Allow"] = allowed
        return response


def not_found_view(request, *args, **kwargs):
    """Any /api/ path no operation matches: JSON, like every other API error (pages keep the HTML 404)."""
    return JsonResponse(error_body("not_found"), status=404, json_dumps_params={"ensure_ascii": False})


def _plain(errors):
    out = []
    for error in errors:
        if isinstance(error, dict):
            out.append({"loc": [str(p) for p in error.get("loc", [])], "msg": str(error.get("msg", ""))})
    return out


# One router per app.
from agents.api import router as agents_router  # noqa: E402
from corememory.api import router as corememory_router  # noqa: E402
from knowledge.api import router as knowledge_router  # noqa: E402
from privacy.api import router as privacy_router  # noqa: E402
from threads.api import router as threads_router  # noqa: E402

api.add_router("/", agents_router)
api.add_router("/", corememory_router)
api.add_router("/", threads_router)
api.add_router("/", knowledge_router)
api.add_router("/", privacy_router)
