"""SQLite runs with secure_delete on, so deleted rows leave zeros, not readable text, in
the file's free pages (the configured connection, not SQLite's build default)."""

import sqlite3

import pytest
from django.conf import settings
from django.db import connection


@pytest.mark.django_db
def test_every_sqlite_connection_turns_secure_delete_on():
    if connection.vendor != "sqlite":
        pytest.skip("a SQLite setting")
    assert "PRAGMA secure_delete=ON" in settings.DATABASES["default"]["OPTIONS"]["init_command"]
    with connection.cursor() as cursor:
        assert cursor.execute("PRAGMA secure_delete").fetchone()[0] == 1


def test_the_init_command_is_what_zeroes_deleted_rows(tmp_path):
    """The same delete, with the project's init command and with secure_delete off."""
    init = settings.DATABASES["default"].get("OPTIONS", {}).get("init_command") or "PRAGMA secure_delete=ON;"
    canary = b"kanari-secure-delete-check"
    for name, pragmas, expect_left in (("on.db", init, 0), ("off.db", "PRAGMA secure_delete=OFF;", 1)):
        path = tmp_path / name
        db = sqlite3.connect(path)
        db.executescript(pragmas.replace("journal_mode=WAL", "journal_mode=DELETE"))
        db.execute("CREATE TABLE t (body TEXT)")
        db.executemany("INSERT INTO t VALUES (?)", [(canary.decode() + " " + "x" * 200,)] * 50)
        db.commit()
        db.execute("DELETE FROM t")
        db.commit()
        db.close()
        assert (path.read_bytes().count(canary) > 0) == bool(expect_left), name
