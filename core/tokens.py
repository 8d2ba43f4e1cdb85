"""Token counting for budgets: tiktoken with an offline encoding file (nothing downloads).

Budgets are in tokens, never characters. When the tokenizer can't be loaded we fall
back to a CJK-aware estimate (a CJK character is about one token, Latin text about
four characters a token) rather than to a character count.
"""

import functools
import logging
import re

from django.conf import settings

log = logging.getLogger(__name__)

#: a token rarely spans more characters than this; longer texts are cut by characters
#: first, so a 100k-character text is never tokenized (or normalized) whole just to be cut
CHARS_PER_TOKEN_MAX = 8

_CJK = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


@functools.lru_cache(maxsize=4)
def _encoding(name: str):
    import tiktoken

    try:
        return tiktoken.get_encoding(name)
    except Exception:  # an unknown name must not turn into a download attempt
        log.warning("token encoding %s unavailable; using the CJK-aware estimate", name)
        return None


def encoding():
    return _encoding(settings.TOKEN_ENCODING)


def estimate_tokens(text: str) -> int:
    if not text:
        return 0
    cjk = len(_CJK.findall(text))
    other = len(text) - cjk
    return cjk + (other + 3) // 4


#: texts up to this long have their count cached (the same history entries and passages are
#: counted again on every run); longer ones are counted each time
_CACHED_COUNT_CHARS = 4_000


def count_tokens(text: str) -> int:
    if not text:
        return 0
    name = settings.TOKEN_ENCODING
    if len(text) <= _CACHED_COUNT_CHARS:
        return _count_cached(name, text)
    return _count(name, text)


@functools.lru_cache(maxsize=4096)
def _count_cached(name: str, text: str) -> int:
    return _count(name, text)


def _count(name: str, text: str) -> int:
    enc = _encoding(name)
    if enc is None:
        return estimate_tokens(text)
    return len(enc.encode(text, disallowed_special=()))


def truncate_tokens(text: str, limit: int, *, keep: str = "head", marker: str = "…") -> str:
    """Cut `text` to at most `limit` tokens at a token boundary (marker included)."""
    if limit <= 0 or not text:
        return ""
    if len(text) <= _CACHED_COUNT_CHARS and count_tokens(text) <= limit:
        return text  # fits: the same texts are fitted on every run, and their count is cached
    enc = encoding()
    if enc is None:
        return _truncate_estimated(text, limit, keep=keep, marker=marker)
    tokens = enc.encode(text, disallowed_special=())
    if len(tokens) <= limit:
        return text
    room = limit - count_tokens(marker)
    if room <= 0:
        return ""
    # A cut can split a multi-byte character; back off until the piece decodes cleanly
    # and still fits.
    while room > 0:
        piece_tokens = tokens[:room] if keep == "head" else tokens[-room:]
        piece = enc.decode(piece_tokens, errors="ignore")
        out = piece + marker if keep == "head" else marker + piece
        if count_tokens(out) <= limit:
            return out
        room -= 1
    return ""


def _truncate_estimated(text: str, limit: int, *, keep: str, marker: str) -> str:
    if estimate_tokens(text) <= limit:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        piece = text[:mid] if keep == "head" else text[-mid:]
        if estimate_tokens(piece + marker) <= limit:
            lo = mid
        else:
            hi = mid - 1
    if lo == 0:
        return ""
    return text[:lo] + marker if keep == "head" else marker + text[-lo:]
