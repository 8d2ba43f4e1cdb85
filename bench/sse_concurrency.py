"""50 concurrent SSE streams from a slow provider plus ordinary API calls, on the server
`make run` starts (gunicorn, threaded workers), side by side with gunicorn's default
sync workers for contrast. Prints ratios measured in one run.

    .venv/bin/python bench/sse_concurrency.py [--streams 50] [--chunks 40] [--delay 0.1]
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import procs  # noqa: E402


def timed_get(url, headers, timeout=60):
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout) as response:
            response.read()
            ok = response.status == 200
    except Exception:
        ok = False
    return time.perf_counter() - start, ok


def scenario(name, server_cmd, env, tmp, agent_id, key, args):
    port = procs.free_port()
    proc = procs.spawn([a.replace("{port}", str(port)) for a in server_cmd], env, tmp / f"{name}.log")
    base = f"http://127.0.0.1:{port}"
    headers = {"X-API-Key": key}
    try:
        procs.wait_for_http(f"{base}/api/openapi.json", proc=proc)
        status, first = procs.http_json("POST", f"{base}/api/agents/{agent_id}/run", {"input": "热身"}, headers)
        assert status == 200 and first["status"] == "completed", first
        run_url = f"{base}/api/runs/{first['run_id']}"

        idle = [timed_get(run_url, headers)[0] for _ in range(args.calls)]

        single_start = time.perf_counter()
        procs.sse_request(f"{base}/api/agents/{agent_id}/run/stream", {"input": "出一份试卷"}, headers)
        single = time.perf_counter() - single_start

        results = []

        def stream(i):
            start = time.perf_counter()
            try:
                events = procs.sse_request(f"{base}/api/agents/{agent_id}/run/stream", {"input": f"出第{i}份试卷"},
                                           headers, timeout=args.stream_timeout)
                ok = bool(events) and events[-1][0] == "done"
            except Exception:
                ok = False
            results.append((ok, time.perf_counter() - start))

        threads = [threading.Thread(target=stream, args=(i,), daemon=True) for i in range(args.streams)]
        burst_start = time.perf_counter()
        for thread in threads:
            thread.start()
        time.sleep(min(1.0, args.delay * args.chunks / 4))  # streams are in flight
        loaded = [timed_get(run_url, headers, timeout=args.stream_timeout) for _ in range(args.calls)]
        for thread in threads:
            thread.join(timeout=args.stream_timeout + 5)
        burst = time.perf_counter() - burst_start
        completed = sum(1 for ok, _ in results if ok)
        return {
            "name": name,
            "idle_p50": statistics.median(idle),
            "loaded_p50": statistics.median(t for t, _ in loaded),
            "loaded_ok": sum(1 for _, ok in loaded if ok),
            "single_stream": single,
            "burst": burst,
            "completed": completed,
        }
    finally:
        procs.stop(proc)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--chunks", type=int, default=40)
    parser.add_argument("--delay", type=float, default=0.1)
    parser.add_argument("--calls", type=int, default=30, help="ordinary API calls measured idle and under load")
    parser.add_argument("--stream-timeout", type=float, default=60)
    parser.add_argument("--skip-sync", action="store_true", help="measure only the make-run configuration")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-sse-"))
    slow_port = procs.free_port()
    slow = subprocess.Popen([sys.executable, str(ROOT / "bench" / "slow_openai_server.py"), "--port", str(slow_port),
                             "--chunks", str(args.chunks), "--delay", str(args.delay)], start_new_session=True)
    try:
        procs.wait_for_http(f"http://127.0.0.1:{slow_port}/v1/models", proc=slow)
        env = procs.project_env(tmp / "db.sqlite3", ALLOW_SCRIPTED_PROVIDER="0")
        print(f"setting up in {tmp} …", flush=True)
        agent_id, key = procs.bootstrap_school(env, provider="openai", base_url=f"http://127.0.0.1:{slow_port}/v1",
                                               model="slow")
        print(f"slow provider: {args.chunks} chunks × {args.delay}s = {args.chunks * args.delay:.1f}s per reply; "
              f"{args.streams} concurrent streams; {args.calls} ordinary GET /api/runs/{{id}} idle and under load\n",
              flush=True)
        scenarios = [
            ("make run (gthread)", [sys.executable, "manage.py", "serve", "--host", "127.0.0.1", "--port", "{port}",
                                     "--no-worker"]),
        ]
        if not args.skip_sync:
            scenarios.append(("gunicorn sync x2", [sys.executable, "-m", "gunicorn", "memoryproj.wsgi:application",
                                                   "--bind", "127.0.0.1:{port}", "--workers", "2",
                                                   "--timeout", "120", "--no-control-socket"]))
        rows = []
        for name, cmd in scenarios:
            print(f"running: {name} …", flush=True)
            rows.append(scenario(name, cmd, env, tmp, agent_id, key, args))
        print()
        header = (f"{'server':<20} {'streams done':>12} {'burst/single':>13} {'API p50 idle':>13} "
                  f"{'API p50 loaded':>15} {'loaded/idle':>12} {'API ok':>8}")
        print(header)
        print("-" * len(header))
        for r in rows:
            print(f"{r['name']:<20} {r['completed']:>6}/{args.streams:<5} {r['burst'] / r['single_stream']:>13.2f} "
                  f"{r['idle_p50'] * 1000:>11.1f}ms {r['loaded_p50'] * 1000:>13.1f}ms "
                  f"{r['loaded_p50'] / r['idle_p50']:>12.2f} {r['loaded_ok']:>4}/{args.calls}")
        print("\nburst/single: wall time for all streams at once ÷ one stream alone (1.0 = fully concurrent).")
        print("loaded/idle: median latency of an ordinary API call while the streams run ÷ with none.")
    finally:
        procs.stop(slow)


if __name__ == "__main__":
    main()
