"""The scripted provider's answers, with memory calls slowed down, so an end-to-end test
can erase while the real worker still has jobs queued and in progress."""

import json
import re
import time

from agents.providers.scripted import default_responder

MEMORY_CALL_SECONDS = 0.4


def respond(messages, purpose):
    if purpose == "chat":
        return default_responder(messages, purpose)
    time.sleep(MEMORY_CALL_SECONDS)
    if purpose == "extract":
        # The canary sits on a fenced, datamarked line ("┆kanari…"), so it is searched, not split out.
        found = re.search(r"kanari[0-9a-f]+", messages[-1]["content"] if messages else "")
        return json.dumps([{"fact": f"{found.group()} 偏好选择题", "confidence": 0.8}]) if found else "NONE"
    return default_responder(messages, purpose)
