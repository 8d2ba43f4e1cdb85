"""The validated-text type: text every database can store, checked once for every input.

Refused (422, code `invalid_text`), on SQLite and PostgreSQL alike:
- NUL (PostgreSQL text cannot hold it; SQLite would store it silently),
- lone surrogates (not UTF-8; PostgreSQL refuses them, SQLite stores garbage),
- C0 and C1 control characters other than tab, line feed and carriage return (CR is
  kept because browsers send form text with CRLF line breaks).

Stripped, silently: the bidirectional overrides and isolates U+202A–U+202E and
U+2066–U+2069. They carry no meaning in a teacher's text, and are the "Trojan Source"
trick for making text read differently from what it is; the rest of the text is kept.

`SafeText` is the same check as a pydantic type, for every ninja schema that takes
text; `validate_text` is the check for services (called by the API, pages, admin and
commands alike). `clean_text` is for text we extracted ourselves (an uploaded file):
it drops what `validate_text` would refuse instead of refusing the whole file.
"""

import re
from typing import Annotated

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

from core.errors import AppError

INVALID_TEXT = "invalid_text"

_REFUSED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")


def _problem(text: str) -> str:
    """Why `text` cannot be stored, or "" when it can."""
    found = _REFUSED.search(text)
    if found is None:
        return ""
    char = found.group()
    if char == "\x00":
        return "must not contain NUL characters"
    if "\ud800" <= char <= "\udfff":
        return "is not valid Unicode text (lone surrogate)"
    return f"must not contain control characters (U+{ord(char):04X})"


def validate_text(text: str, *, field: str = "input") -> str:
    """`text` without bidi controls; AppError(invalid_text, 422) when it cannot be stored."""
    if not isinstance(text, str):
        raise AppError(INVALID_TEXT, f"{field} must be text", status=422)
    problem = _problem(text)
    if problem:
        raise AppError(INVALID_TEXT, f"{field} {problem}", status=422)
    return _BIDI_CONTROLS.sub("", text)


def clean_text(text: str) -> str:
    """Extracted text made storable: refused characters and bidi controls dropped."""
    return _BIDI_CONTROLS.sub("", _REFUSED.sub("", text or ""))


def _validated(value: str) -> str:
    problem = _problem(value)
    if problem:
        # The error type becomes the 422's `code` (memoryproj.api.on_validation_error).
        raise PydanticCustomError(INVALID_TEXT, "text {problem}", {"problem": problem})
    return _BIDI_CONTROLS.sub("", value)


#: str for every ninja schema field that takes text.
SafeText = Annotated[str, AfterValidator(_validated)]
