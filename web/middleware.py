"""A strict Content-Security-Policy on the teacher pages: only our own script and styles
run, never inline script. It backs up the Markdown sanitizer: even if model text slipped
an element through, it could not execute. And the language rule for the pages."""

from django.conf import settings
from django.middleware import locale
from django.utils import translation

from core.errors import API_PREFIX, api_client_language

CSP = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])
# The admin and the API docs bring their own inline scripts and styles.
EXEMPT_PREFIXES = ("/admin/", API_PREFIX)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not request.path.startswith(EXEMPT_PREFIXES) and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = CSP
        return response


class LocaleMiddleware(locale.LocaleMiddleware):
    """Chinese unless the person chose otherwise. The language cookie (written by
    set_language from the switch in the navigation) decides; the browser's Accept-Language
    does not, because school laptops often run an English system for a Chinese teacher.
    API clients (no session cookie) are the exception: they say which language their error
    messages should be in with Accept-Language, the way HTTP clients do."""

    def process_request(self, request):
        api_language = api_client_language(request)
        if api_language is not None:
            translation.activate(api_language)
            request.LANGUAGE_CODE = translation.get_language()
            return
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
        try:
            language = translation.get_supported_language_variant(chosen) if chosen else settings.LANGUAGE_CODE
        except LookupError:
            language = settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()
