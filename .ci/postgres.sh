# Sourced by .ci/run: starts a throwaway PostgreSQL server on 127.0.0.1 so the storage suite also runs against
# the PostgreSQL backend (tests/storage/test_storage.py skips it when no server answers). Installs Debian's server when
# it is missing. Best effort: without it the SQLite suite still runs, and the skip is announced loudly.
start_test_postgres() {
  if [ -n "${HEXDIRECTOR_TEST_POSTGRES_URL:-}" ]; then
    return 0
  fi
  local bindir
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$bindir" ] && [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null || true
    bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  fi
  if [ -z "$bindir" ]; then
    echo "WARNING: no PostgreSQL server available: the PostgreSQL storage tests will be skipped" >&2
    return 0
  fi
  local run=()  # PostgreSQL refuses to run as root: run it as the postgres user the package created
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    run=(runuser -u postgres --)
  fi
  PG_TEST_DIR=$(mktemp -d /tmp/hexd-pg.XXXXXX)
  chmod 755 "$PG_TEST_DIR"
  [ "$(id -u)" = 0 ] && chown postgres "$PG_TEST_DIR"
  local port=55432
  if "${run[@]}" "$bindir/initdb" -D "$PG_TEST_DIR/data" -A trust -U postgres >/dev/null &&
    "${run[@]}" "$bindir/pg_ctl" -D "$PG_TEST_DIR/data" -l "$PG_TEST_DIR/log" -w \
      -o "-p $port -k $PG_TEST_DIR -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null; then
    export HEXDIRECTOR_TEST_POSTGRES_URL="postgresql://postgres@127.0.0.1:$port/postgres"
    PG_TEST_STOP=("${run[@]}" "$bindir/pg_ctl" -D "$PG_TEST_DIR/data" -m immediate stop)
    trap stop_test_postgres EXIT
    echo "PostgreSQL test server on 127.0.0.1:$port"
  else
    echo "WARNING: the PostgreSQL test server did not start (see below): its tests will be skipped" >&2
    cat "$PG_TEST_DIR/log" >&2 2>/dev/null || true
  fi
}

stop_test_postgres() {
  "${PG_TEST_STOP[@]}" >/dev/null 2>&1 || true
  rm -rf "$PG_TEST_DIR"
}
