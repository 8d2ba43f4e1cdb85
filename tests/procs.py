"""Real processes for end-to-end tests: the production server, django-q2 workers and an
OpenAI-compatible model server, each on a free loopback port against a file database
(a worker can't see an in-memory test database)."""

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_http(url: str, timeout: float = 60, proc: subprocess.Popen | None = None) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before {url} answered")
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except urllib.error.HTTPError:
            return  # it answered
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer in {timeout}s")


_created_databases: list[str] = []


def _postgres_database_for(db_path: Path) -> str:
    """A fresh PostgreSQL database for one end-to-end test (dropped at exit)."""
    import atexit
    import hashlib

    import psycopg

    base = os.environ["DATABASE_URL"]
    name = "e2e_" + hashlib.sha1(str(db_path).encode()).hexdigest()[:12]
    admin_url = base.replace("postgres://", "postgresql://", 1)
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    if not _created_databases:
        atexit.register(_drop_created_databases, admin_url)
    _created_databases.append(name)
    return base.rsplit("/", 1)[0] + "/" + name


def _drop_created_databases(admin_url: str) -> None:
    import psycopg

    with contextlib.suppress(Exception), psycopg.connect(admin_url, autocommit=True) as conn:
        for name in _created_databases:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def project_env(db_path: Path | None = None, **extra) -> dict:
    """Environment for a child process against its own database: a file SQLite database, or,
    when the suite runs on PostgreSQL (DATABASE_URL set), a fresh PostgreSQL database, with
    Redis as the broker when REDIS_URL is set and a queue name of its own."""
    env = os.environ.copy()
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("ALLOW_SCRIPTED_PROVIDER", "1")
    env["SECURE_COOKIES"] = "0"
    if db_path is not None and not extra.get("DATABASE_URL"):
        if os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
            env["DATABASE_URL"] = _postgres_database_for(db_path)
        else:
            env["DATABASE_URL"] = f"sqlite:///{db_path}"
        env["MEMORY_QUEUE_NAME"] = "e2e-" + os.urandom(4).hex()
    env.update({k: str(v) for k, v in extra.items()})
    return env


def manage(env: dict, *args: str, check: bool = True) -> str:
    result = subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=300)
    if check and result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout.strip()


def stop(proc: subprocess.Popen, sig=signal.SIGTERM, timeout: float = 15) -> None:
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        if sig == signal.SIGKILL:
            os.killpg(proc.pid, sig)
        else:
            # A graceful stop goes to the leader (gunicorn's master, qcluster), which stops
            # its children in order; sent to the whole group it kills django-q2's children
            # under its sentinel, which then hangs until the timeout.
            os.kill(proc.pid, sig)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # anything the leader left behind


def spawn(args: list[str], env: dict, log_path: Path) -> subprocess.Popen:
    log = open(log_path, "ab")
    return subprocess.Popen(args, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


@contextlib.contextmanager
def web_server(env: dict, tmp: Path, *, workers: int = 1, threads: int = 16):
    """gunicorn (the production server `make run` uses), without the memory worker."""
    port = free_port()
    proc = spawn(
        [PYTHON, "-m", "gunicorn", "memoryproj.wsgi:application", "--bind", f"127.0.0.1:{port}",
         "--worker-class", "gthread", "--workers", str(workers), "--threads", str(threads), "--timeout", "120",
         "--no-control-socket"],
        env, tmp / f"gunicorn-{port}.log",
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_http(f"{base}/api/openapi.json", proc=proc)
        yield base
    finally:
        stop(proc)


@contextlib.contextmanager
def memory_worker(env: dict, tmp: Path, name: str = "worker"):
    """A real django-q2 cluster (`manage.py qcluster`)."""
    proc = spawn([PYTHON, "manage.py", "qcluster"], env, tmp / f"qcluster-{name}.log")
    try:
        time.sleep(1.0)
        if proc.poll() is not None:
            raise RuntimeError((tmp / f"qcluster-{name}.log").read_text())
        yield proc
    finally:
        stop(proc)


@contextlib.contextmanager
def llama_server(tmp: Path):
    """llama.cpp's OpenAI-compatible server running the SmolLM2 file, on loopback."""
    from agents.providers.local import local_model_path

    port = free_port()
    proc = spawn(
        [PYTHON, "-m", "llama_cpp.server", "--model", str(local_model_path()), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "4096", "--model_alias", "smollm2"],
        # Its settings also read HOST and PORT from the environment (make exports them).
        {**os.environ, "HOST": "127.0.0.1", "PORT": str(port)}, tmp / f"llama-server-{port}.log",
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_http(f"{base}/v1/models", timeout=120, proc=proc)
        yield f"{base}/v1"
    finally:
        stop(proc)


def http_json(method: str, url: str, body: dict | None = None, headers: dict | None = None, timeout: float = 120):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def wait_until(predicate, timeout: float = 60, interval: float = 0.25):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError("condition not met in time")


def django_eval(env: dict, code: str) -> str:
    """Run Python in the child's Django (manage.py shell -c) and return the last line it printed."""
    out = manage(env, "shell", "--no-imports", "-c", code)
    return out.splitlines()[-1] if out else ""


def sse_request(url: str, body: dict, headers: dict | None = None, timeout: float = 300) -> list[tuple[str, dict]]:
    """POST and read a whole Server-Sent Events stream. `timeout` is per read: the local
    model answers the memory job's calls first, and on a slow, busy 2-core machine the
    stream's first token came after more than 120 s."""
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    events, name = [], ""
    with urllib.request.urlopen(request, timeout=timeout) as response:
        for raw in response:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                events.append((name, json.loads(line[6:])))
    return events


def bootstrap_school(env: dict, *, provider: str = "scripted", base_url: str = "", model: str = "",
                     language: str = "zh", slug: str = "yizhong",
                     max_output_tokens: int | None = None) -> tuple[str, str]:
    """migrate, then a school, an agent and an API key through the public commands."""
    manage(env, "migrate", "--noinput")
    manage(env, "create_tenant", slug, "--name", "第一中学")
    args = ["create_agent", "--tenant", slug, "--name", "出题助手", "--provider", provider, "--language", language]
    if base_url:
        args += ["--base-url", base_url]
    if model:
        args += ["--model", model]
    if max_output_tokens is not None:
        args += ["--max-output-tokens", str(max_output_tokens)]
    agent_id = manage(env, *args).splitlines()[-1]
    key = manage(env, "create_api_key", "--tenant", slug).splitlines()[-1]
    return agent_id, key


def db_query(env: dict, sql: str, params: tuple = ()) -> list[tuple]:
    """Rows from the child's database (SQLite file or PostgreSQL), read directly.
    Write `?` placeholders; they are adapted for PostgreSQL."""
    url = env["DATABASE_URL"]
    if url.startswith("sqlite:///"):
        import sqlite3

        with contextlib.closing(sqlite3.connect(url[len("sqlite:///"):])) as conn:
            return conn.execute(sql, params).fetchall()
    import psycopg

    with psycopg.connect(url.replace("postgres://", "postgresql://", 1)) as conn:
        return conn.execute(sql.replace("%", "%%").replace("?", "%s"), params).fetchall()
