"""Refuse NUL characters in the URL or query string up front: PostgreSQL text can't
hold them, so they would otherwise surface as a 500 deep inside a query."""

from django.conf import settings
from django.http import HttpResponseBadRequest, JsonResponse
from django.utils import translation

from core.errors import API_PREFIX, api_client_language, error_body


class RejectNulMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path or any("\x00" in k or "\x00" in v for k, values in request.GET.lists()
                                          for v in values):
            if request.path.startswith(API_PREFIX):
                # This runs before the locale middleware: choose the message's language here.
                with translation.override(api_client_language(request) or settings.LANGUAGE_CODE):
                    body = error_body("invalid_text")
                return JsonResponse(body, status=400, json_dumps_params={"ensure_ascii": False})
            return HttpResponseBadRequest("Bad request")
        return self.get_response(request)
