"""The one NinjaAPI: a router per app, one auth list, central error handlers."""

import logging

from django.http import Http404
from ninja import NinjaAPI
from ninja.renderers import JSONRenderer
from ninja.errors import AuthenticationError, HttpError, ValidationError

from agents.auth import api_auth
from core.errors import AppError
from core.text import INVALID_TEXT

log = logging.getLogger(__name__)

class Utf8JSONRenderer(JSONRenderer):
    """Chinese text as UTF-8, not \\u escapes: readable in curl and logs."""

    json_dumps_params = {"ensure_ascii": False}


api = NinjaAPI(
    renderer=Utf8JSONRenderer(),
    title="Teaching-assistant memory API",
    version="1.0.0",
    description="Agents that remember: thread, core facts, episodic recall and knowledge base.",
    auth=api_auth,
    docs_url="/docs",
    urls_namespace="api",
)


def _error(request, status: int, code: str, message: str = "", **extra):
    return api.create_response(request, {"code": code, "message": message or code, **extra}, status=status)


@api.exception_handler(AppError)
def on_app_error(request, exc: AppError):
    return api.create_response(request, exc.as_body(), status=exc.status)


@api.exception_handler(ValidationError)
def on_validation_error(request, exc: ValidationError):
    errors = exc.errors
    # A body that is not JSON at all gets its own code.
    if any(e.get("type") == "json_invalid" or "JSON" in str(e.get("msg", "")) for e in errors if isinstance(e, dict)):
        return _error(request, 400, "invalid_json", "request body is not valid JSON")
    # Text no database can store (core.text.SafeText; pydantic's own check catches lone
    # surrogates first): the same code as the services use.
    if any(isinstance(e, dict) and e.get("type") in (INVALID_TEXT, "string_unicode") for e in errors):
        return _error(request, 422, INVALID_TEXT, "the request holds text that cannot be stored", errors=_plain(errors))
    return _error(request, 422, "validation_error", "request does not match the schema", errors=_plain(errors))


@api.exception_handler(AuthenticationError)
def on_auth_error(request, exc):
    return _error(request, 401, "unauthorized", "a valid X-API-Key header or a logged-in session is required")


@api.exception_handler(Http404)
def on_not_found(request, exc):
    return _error(request, 404, "not_found", "not found")


@api.exception_handler(HttpError)
def on_http_error(request, exc: HttpError):
    if exc.status_code == 400 and "parse" in str(exc).lower():
        return _error(request, 400, "invalid_json", "request body is not valid JSON")
    code = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed"}
    return _error(request, exc.status_code, code.get(exc.status_code, "http_error"), str(exc))


@api.exception_handler(Exception)
def on_unexpected(request, exc: Exception):
    log.exception("unhandled API error")
    return _error(request, 500, "internal_error", "internal error")


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
from threads.api import router as threads_router  # noqa: E402

api.add_router("/", agents_router)
api.add_router("/", corememory_router)
api.add_router("/", threads_router)
api.add_router("/", knowledge_router)
