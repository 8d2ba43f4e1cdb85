"""The validated-text type: text every database can store, checked once for every input."""

from core.errors import AppError


def validate_text(text: str, *, field: str = "input") -> str:
    """Text we can store on every database: valid UTF-8 (no lone surrogates), no NUL."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise AppError("invalid_text", f"{field} is not valid Unicode text", status=422) from None
    if "\x00" in text:
        raise AppError("invalid_text", f"{field} must not contain NUL characters", status=422)
    return text
