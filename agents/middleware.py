"""Refuse requests no view can handle safely, before any view (or ninja's parser) sees them.

- A NUL in the URL or query string: 400 `invalid_text` (PostgreSQL text can't hold it,
  so it would otherwise surface as a 500 deep inside a query).
- A body over the limit: 413 `payload_too_large`, judged on Content-Length before a byte
  is read. The limit is DATA_UPLOAD_MAX_MEMORY_SIZE, or for multipart uploads the file
  limit (KB_MAX_UPLOAD_BYTES) plus a small allowance for the other form fields. A
  Content-Length that lies short is harmless: the server reads only that many bytes and
  the truncated body is refused as invalid JSON by the view.
- A JSON body nested deeper than JSON_MAX_DEPTH: 400 `json_too_deep`, found by a
  bracket-counting scan that never recurses, so a 100,000-deep body can't reach
  `json.loads` and its RecursionError on any endpoint.
"""

import re

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponseBadRequest, JsonResponse
from django.utils import translation

from core.errors import API_PREFIX, api_client_language, error_body

#: deepest JSON nesting any endpoint accepts (our real bodies nest 2 or 3 levels)
JSON_MAX_DEPTH = 64
#: room for the non-file fields and the part headers of a multipart upload
MULTIPART_FIELDS_ALLOWANCE = 64 * 1024

_FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_JSON_BRACKET = re.compile(rb"[\[\]{}]")


def json_depth_exceeds(body: bytes, limit: int = JSON_MAX_DEPTH) -> bool:
    """True when `body`, read as JSON, nests deeper than `limit`. Iterative; brackets
    inside strings don't count. Malformed JSON is left to the parser to refuse."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False  # the common case, decided by two C-speed counts
    depth = 0
    for match in _JSON_BRACKET.finditer(_JSON_STRING.sub(b'""', body)):
        if match.group() in (b"[", b"{"):
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def body_limit(content_type: str) -> int:
    if content_type == "multipart/form-data":
        return settings.KB_MAX_UPLOAD_BYTES + MULTIPART_FIELDS_ALLOWANCE
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def _content_length(request) -> int:
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0  # what Django itself assumes


def _refusal(request, status: int, code: str):
    """JSON with the code's catalogue message (core.errors) for the API and for any 413; a
    page's 400 stays plain."""
    if not request.path.startswith(API_PREFIX) and status == 400:
        return HttpResponseBadRequest("Bad request")
    # This runs before the locale middleware: choose the message's language here.
    with translation.override(api_client_language(request) or settings.LANGUAGE_CODE):
        body = error_body(code)
    return JsonResponse(body, status=status, json_dumps_params={"ensure_ascii": False})


class RequestGuardMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path or any("\x00" in k or "\x00" in v for k, values in request.GET.lists()
                                          for v in values):
            return _refusal(request, 400, "invalid_text")
        if _content_length(request) > body_limit(request.content_type):
            return _refusal(request, 413, "payload_too_large")
        if request.content_type not in _FORM_TYPES and _content_length(request):
            try:
                body = request.body
            except RequestDataTooBig:
                return _refusal(request, 413, "payload_too_large")
            if json_depth_exceeds(body):
                return _refusal(request, 400, "json_too_deep")
        return self.get_response(request)

