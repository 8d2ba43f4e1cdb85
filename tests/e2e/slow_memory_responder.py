"""Scripted replies for the crash tests and bench/crash_suite.py, imported by the server and
the memory workers by name (SCRIPTED_RESPONDER): memory work that takes a while, so a
SIGKILL lands in the middle of a job.

SLOW_EXTRACT_SECONDS delays every extraction, SLOW_COMPRESS_SECONDS every compression,
SLOW_CHAT_SECONDS each streamed or plain chat reply (the stream sends its text in pieces)."""

import json
import os
import time

from agents.providers.scripted import default_responder

FACT = "偏好人教版教材"


def _pause(name: str) -> None:
    seconds = float(os.environ.get(name) or 0)
    if seconds:
        time.sleep(seconds)


def respond(messages: list[dict], purpose: str) -> str:
    if purpose == "extract":
        _pause("SLOW_EXTRACT_SECONDS")
        return json.dumps([{"fact": FACT, "confidence": 0.8}], ensure_ascii=False)
    if purpose == "compress":
        _pause("SLOW_COMPRESS_SECONDS")
    if purpose == "chat":
        _pause("SLOW_CHAT_SECONDS")
    return default_responder(messages, purpose)
