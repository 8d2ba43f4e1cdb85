"""A deliberately slow OpenAI-compatible chat server for benchmarks and the stop-button
test: it streams `--chunks` pieces, `--delay` seconds apart, over real HTTP on loopback.
With `--log FILE` it appends one line per streamed request: `complete N/N`, or
`aborted K/N` when the client closed the connection after K pieces."""

import argparse
import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def make_handler(chunks: int, delay: float, log_path: str = ""):
    def record(line: str) -> None:
        if log_path:
            with open(log_path, "a", encoding="utf-8") as log:
                log.write(line + "\n")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            body = json.dumps({"object": "list", "data": [{"id": "slow", "object": "model"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
            pieces = [f"第{i}段 " for i in range(chunks)]
            if not request.get("stream"):
                time.sleep(delay * chunks)
                body = json.dumps({
                    "id": "c1", "object": "chat.completion", "created": int(time.time()), "model": "slow",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": "".join(pieces)},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": chunks, "total_tokens": 10 + chunks},
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            sent = 0
            try:
                for piece in pieces:
                    chunk = {"id": "c1", "object": "chat.completion.chunk", "created": int(time.time()),
                             "model": "slow",
                             "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
                    self.wfile.write(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
                    self.wfile.flush()
                    sent += 1
                    time.sleep(delay)
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                record(f"aborted {sent}/{chunks}")
                self.close_connection = True
                return
            record(f"complete {sent}/{chunks}")
            self.close_connection = True

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--chunks", type=int, default=40)
    parser.add_argument("--delay", type=float, default=0.1)
    parser.add_argument("--log", default="", help="append one line per streamed request (complete/aborted)")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args.chunks, args.delay, args.log))
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
