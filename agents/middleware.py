"""Refuse NUL characters in the URL or query string up front: PostgreSQL text can't
hold them, so they would otherwise surface as a 500 deep inside a query."""

from django.http import HttpResponseBadRequest, JsonResponse


class RejectNulMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path or any("\x00" in k or "\x00" in v for k, values in request.GET.lists()
                                          for v in values):
            if request.path.startswith("/api/"):
                return JsonResponse({"code": "invalid_text", "message": "the URL contains a NUL character"},
                                    status=400)
            return HttpResponseBadRequest("Bad request")
        return self.get_response(request)
