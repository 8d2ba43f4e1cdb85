"""Item 7's byte-level half: on a SQLite file database (the default install), after
`manage.py erase` the canary is in no byte of the database file or its WAL, while a
colleague's canary planted the same way still is. Every step is a real `manage.py` or
`python -m` child process against the file, as in production."""

import json
import os
import subprocess
import sys

import pytest

from tests.privacy.canary import PATHS, new_canary
from tests.procs import ROOT, manage, project_env

pytestmark = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")),
    reason="the raw-bytes check is about SQLite files; PostgreSQL is scanned by test_canary.py",
)


def _canary_tool(env, *args) -> object:
    result = subprocess.run([sys.executable, "-m", "tests.privacy.canary", *args], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_erased_canary_is_in_no_byte_of_the_sqlite_file(tmp_path):
    from tests.privacy.canary import file_hits

    db_path = tmp_path / "db.sqlite3"
    env = project_env(db_path, DATABASE_URL=f"sqlite:///{db_path}", VAR_DIR=str(tmp_path), MEMORY_QUEUE_SYNC="1",
                      DJANGO_SETTINGS_MODULE="memoryproj.settings", LOG_LEVEL="WARNING")
    manage(env, "migrate", "--noinput")
    ids = _canary_tool(env, "setup")
    mine, theirs = new_canary(), new_canary()
    assert set(_canary_tool(env, "plant", mine, "--teacher", "wang")) == set(PATHS)
    assert set(_canary_tool(env, "plant", theirs, "--teacher", "li")) == set(PATHS)
    assert file_hits(db_path, mine)["db.sqlite3"] + file_hits(db_path, mine).get("db.sqlite3-wal", 0) > 0

    receipt = json.loads(manage(env, "erase", "--tenant", "yizhong", "--teacher", "wang"))

    assert receipt["counts"]["runs"] == 4
    assert sum(file_hits(db_path, mine).values()) == 0, file_hits(db_path, mine)
    assert sum(file_hits(db_path, theirs).values()) > 0
    after = _canary_tool(env, "scan", mine)
    assert after == {"columns": [], "paths": []}
    assert set(_canary_tool(env, "scan", theirs)["paths"]) == set(PATHS)
    assert ids["agent_id"]
