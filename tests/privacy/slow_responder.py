"""The scripted provider's answers, with memory calls slowed down, so an end-to-end test
can erase while the real worker still has jobs queued and in progress."""

import json
import time

from agents.providers.scripted import default_responder

MEMORY_CALL_SECONDS = 0.4


def respond(messages, purpose):
    if purpose == "chat":
        return default_responder(messages, purpose)
    time.sleep(MEMORY_CALL_SECONDS)
    if purpose == "extract":
        user = messages[-1]["content"] if messages else ""
        word = next((w for w in user.split() if w.startswith("kanari")), "")
        return json.dumps([{"fact": f"{word} 偏好选择题", "confidence": 0.8}]) if word else "NONE"
    return default_responder(messages, purpose)
