#!/usr/bin/env bash
# Run the suite on SQLite, then on PostgreSQL + Redis when both are reachable.
# DB_MATRIX=sqlite|postgres|all (default all). Extra pytest args: PYTEST_ARGS.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
MATRIX=${DB_MATRIX:-all}
PG_URL=${TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
REDIS=${TEST_REDIS_URL:-redis://127.0.0.1:6379/0}

bash scripts/system-deps.sh || echo ">> system packages for browser tests could not be installed; those tests will skip"

status=0
if [[ $MATRIX == all || $MATRIX == sqlite ]]; then
  echo ">> test suite on SQLite"
  env -u DATABASE_URL -u REDIS_URL "$PY" -m pytest ${PYTEST_ARGS:-} || status=$?
fi

if [[ $MATRIX == all || $MATRIX == postgres ]]; then
  if "$PY" - "$PG_URL" "$REDIS" <<'PY'
import sys
import psycopg, redis
try:
    psycopg.connect(sys.argv[1].replace("postgres://", "postgresql://"), connect_timeout=3).close()
    redis.Redis.from_url(sys.argv[2], socket_connect_timeout=3).ping()
except Exception as exc:
    print(f">> PostgreSQL/Redis not reachable ({exc.__class__.__name__}: {exc})")
    sys.exit(1)
PY
  then
    echo ">> test suite on PostgreSQL + Redis"
    DATABASE_URL="$PG_URL" REDIS_URL="$REDIS" "$PY" -m pytest ${PYTEST_ARGS:-} || status=$?
  else
    echo ">> PostgreSQL and Redis are not both running here: ran the suite on SQLite only"
    [[ $MATRIX == postgres ]] && status=1
  fi
fi
exit $status
