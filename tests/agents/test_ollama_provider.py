"""The `ollama` kind through the official client, over real HTTP to a loopback server
that speaks Ollama's native /api/chat (NDJSON streaming)."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agents.providers.base import ProviderError
from agents.providers.ollama_native import OllamaProvider
from tests.procs import free_port

received: list[dict] = []


class FakeOllama(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        received.append(body)
        if body["model"] == "missing":
            payload = json.dumps({"error": "model 'missing' not found"}).encode()
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        pieces = ["二叉树", "的前序", "遍历"]
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.end_headers()
        for piece in pieces:
            self.wfile.write(json.dumps({"model": body["model"], "created_at": "2026-11-30T00:00:00Z",
                                         "message": {"role": "assistant", "content": piece},
                                         "done": False}).encode() + b"\n")
        self.wfile.write(json.dumps({"model": body["model"], "created_at": "2026-11-30T00:00:00Z",
                                     "message": {"role": "assistant", "content": ""}, "done": True,
                                     "done_reason": "stop", "prompt_eval_count": 17,
                                     "eval_count": 3}).encode() + b"\n")
        self.close_connection = True


@pytest.fixture
def ollama_url():
    received.clear()
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), FakeOllama)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_the_ollama_provider_streams_and_reports_real_token_counts(ollama_url):
    provider = OllamaProvider(model="qwen2.5:7b", base_url=ollama_url)
    events = list(provider.stream([{"role": "user", "content": "出题"}], max_tokens=64))
    assert [value for kind, value in events if kind == "delta"] == ["二叉树", "的前序", "遍历"]
    final = events[-1][1]
    assert final.text == "二叉树的前序遍历"
    assert (final.prompt_tokens, final.completion_tokens) == (17, 3)
    assert received[0]["options"]["num_predict"] == 64
    assert received[0]["messages"] == [{"role": "user", "content": "出题"}]
    assert provider.is_local


def test_an_ollama_error_becomes_a_stable_code(ollama_url):
    with pytest.raises(ProviderError) as excinfo:
        OllamaProvider(model="missing", base_url=ollama_url).complete([{"role": "user", "content": "x"}])
    assert excinfo.value.code == "provider_error"


def test_an_ollama_that_is_down_is_unavailable():
    with pytest.raises(ProviderError) as excinfo:
        OllamaProvider(model="qwen2.5:7b", base_url=f"http://127.0.0.1:{free_port()}").complete(
            [{"role": "user", "content": "x"}])
    assert excinfo.value.code == "provider_unavailable"
