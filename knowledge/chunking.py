"""Split a document into token windows with overlap.

A chunk holds whole sentences (or paragraph lines) up to `size` tokens; a sentence
longer than that is cut at token boundaries (never inside a character). Each chunk
after the first starts with the last `overlap` tokens of the one before it, so a fact
that straddles a cut is still whole in one of them.
"""

import re

from core.tokens import count_tokens, encoding, truncate_tokens

_SENTENCE_END = re.compile(r"(?<=[。！？!?；;\n])|(?<=[.:]\s)")


def _split_long(piece: str, size: int) -> list[str]:
    enc = encoding()
    if enc is None:
        out, rest = [], piece
        while rest:
            head = truncate_tokens(rest, size, marker="") or rest[:1]
            out.append(head)
            rest = rest[len(head):]
        return out
    tokens = enc.encode(piece, disallowed_special=())
    out, start = [], 0
    while start < len(tokens):
        end = min(start + size, len(tokens))
        while True:  # back off until the window ends on a whole character
            try:
                text = enc.decode_bytes(tokens[start:end]).decode("utf-8")
                break
            except UnicodeDecodeError:
                if end - start <= 1:
                    end = min(start + size, len(tokens))
                    text = enc.decode(tokens[start:end])
                    break
                end -= 1
        out.append(text)
        start = end
    return out


def _pieces(text: str, size: int):
    for sentence in _SENTENCE_END.split(text):
        if not sentence:
            continue
        tokens = count_tokens(sentence)
        if tokens <= size:
            yield sentence, tokens
        else:
            for part in _split_long(sentence, size):
                yield part, count_tokens(part)


def chunk_text(text: str, *, size: int, overlap: int) -> list[str]:
    size = max(16, size)
    overlap = max(0, min(overlap, size // 2))
    chunks: list[str] = []
    current: list[str] = []
    current_tokens = 0
    for piece, tokens in _pieces(text, size):
        if current and current_tokens + tokens > size:
            chunk = "".join(current)
            chunks.append(chunk)
            carry = truncate_tokens(chunk, overlap, keep="tail", marker="") if overlap else ""
            carry_tokens = count_tokens(carry)
            if carry and carry_tokens + tokens <= size:
                current, current_tokens = [carry], carry_tokens
            else:
                current, current_tokens = [], 0
        current.append(piece)
        current_tokens += tokens
    if current:
        chunks.append("".join(current))
    return [chunk.strip() for chunk in chunks if chunk.strip()]
