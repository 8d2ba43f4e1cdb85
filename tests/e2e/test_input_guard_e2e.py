"""Bad input through the production server (gunicorn): a 21 MB body, a Content-Length
that lies, JSON nested 100,000 deep and a NUL in a fact each get a 4xx with a JSON
`code`, never a 500 or a dropped connection. On SQLite, and on PostgreSQL when the
suite runs with DATABASE_URL."""

import json
import socket
import threading

import pytest

from tests import procs

pytestmark = pytest.mark.e2e

MB = 1024 * 1024


def raw_request(base: str, path: str, *, body: bytes, key: str, content_length: int | None = None,
                content_type: str = "application/json") -> tuple[int, dict]:
    """POST `body` over a plain socket, declaring `content_length` (default: the truth),
    sending the whole body from a thread while the response is read."""
    host, port = base.removeprefix("http://").split(":")
    length = len(body) if content_length is None else content_length
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nX-API-Key: {key}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {length}\r\nConnection: close\r\n\r\n").encode()
    sock = socket.create_connection((host, int(port)), timeout=60)

    def send():
        try:
            sock.sendall(head + body)
        except OSError:
            pass  # the server answered and closed before reading it all: that is the point

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
        if b"\r\n\r\n" in b"".join(chunks) and _complete(b"".join(chunks)):
            break
    sock.close()
    sender.join(timeout=30)
    response = b"".join(chunks)
    status_line, _, rest = response.partition(b"\r\n")
    headers, _, payload = rest.partition(b"\r\n\r\n")
    assert b"application/json" in headers.lower(), response[:500]
    if b"transfer-encoding: chunked" in headers.lower():
        payload = _dechunk(payload)
    return int(status_line.split()[1]), json.loads(payload)


def _dechunk(data: bytes) -> bytes:
    out = b""
    while data:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out, data = out + data[:size], data[size + 2:]
    return out


def _complete(response: bytes) -> bool:
    headers, _, payload = response.partition(b"\r\n\r\n")
    for line in headers.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(payload) >= int(line.split(b":")[1])
    return False


def test_oversized_lying_and_deep_bodies_are_json_4xx_through_gunicorn(tmp_path):
    env = procs.project_env(tmp_path / "db.sqlite3")
    agent_id, key = procs.bootstrap_school(env)
    run_path = f"/api/agents/{agent_id}/run"
    with procs.web_server(env, tmp_path) as base:
        big = json.dumps({"input": "题" * (21 * MB // 3)}).encode()
        assert len(big) > 21 * MB
        status, payload = raw_request(base, run_path, body=big, key=key)
        assert (status, payload["code"]) == (413, "payload_too_large")

        # Content-Length says 30 bytes, 21 MB follow: only 30 are read, and refused as broken JSON.
        status, payload = raw_request(base, run_path, body=big, key=key, content_length=30)
        assert (status, payload["code"]) == (400, "invalid_json")

        # Content-Length claims more than the limit for a small body: refused before reading.
        status, payload = raw_request(base, run_path, body=b'{"input": "hi"}', key=key, content_length=25 * MB)
        assert (status, payload["code"]) == (413, "payload_too_large")

        boundary = "----guard"
        multipart = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.txt\"\r\n"
                     f"Content-Type: text/plain\r\n\r\n").encode() + b"x" * (21 * MB) + f"\r\n--{boundary}--\r\n".encode()
        status, payload = raw_request(base, f"/api/agents/{agent_id}/documents", body=multipart, key=key,
                                      content_type=f"multipart/form-data; boundary={boundary}")
        assert (status, payload["code"]) == (413, "payload_too_large")

        deep = b"[" * 100_000 + b"]" * 100_000
        for path in (run_path, f"/api/agents/{agent_id}/documents", f"/api/agents/{agent_id}/memory/facts"):
            status, payload = raw_request(base, path, body=deep, key=key)
            assert (status, payload["code"]) == (400, "json_too_deep"), path

        status, payload = procs.http_json("POST", f"{base}/api/agents/{agent_id}/memory/facts",
                                          {"text": "老师偏好\x00选择题"}, {"X-API-Key": key})
        assert (status, payload["code"]) == (422, "invalid_text")
        status, payload = procs.http_json("POST", f"{base}/api/agents/{agent_id}/documents",
                                          {"title": "讲义\x00", "text": "二叉树"}, {"X-API-Key": key})
        assert (status, payload["code"]) == (422, "invalid_text")

        # The server is still answering normally afterwards.
        status, payload = procs.http_json("POST", f"{base}{run_path}", {"input": "出一道二叉树的题"},
                                          {"X-API-Key": key})
        assert status == 200 and payload["status"] == "completed", payload
    assert procs.db_query(env, "SELECT COUNT(*) FROM corememory_corefact")[0][0] == 0

