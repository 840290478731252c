#!/usr/bin/env bash
# Runs a command with a throw-away PostgreSQL cluster: `scripts/with-postgres.sh pnpm test`.
#
# Installs Debian's `postgresql` when its binaries are missing, creates a cluster in a temporary directory as
# the `postgres` user (initdb -A trust; loopback only, socket in /tmp), exports FORGEFOLD_TEST_DATABASE_URL
# (and FORGEFOLD_TEST_PG_BIN, for tests that start clusters of their own), runs the command, and stops and
# removes the cluster on exit, whatever the command's outcome. The command's exit code is the script's.
set -euo pipefail

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

find_bin() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && { echo "$dir"; return 0; }
  done
  return 1
}

PG_BIN="$(find_bin || true)"
if [ -z "$PG_BIN" ]; then
  echo "with-postgres: installing Debian's postgresql" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
  PG_BIN="$(find_bin)"
fi

# The cluster belongs to the `postgres` user (initdb refuses root); as that user when we are someone else.
as_postgres() {
  if [ "$(id -un)" = "postgres" ]; then "$@"
  elif [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"
  else sudo -u postgres -- "$@"
  fi
}
id postgres >/dev/null 2>&1 || $SUDO useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres

# A free loopback port.
PORT="${FORGEFOLD_TEST_PG_PORT:-$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}"
CLUSTER="$(mktemp -d /tmp/forgefold-pg-XXXXXX)"
chown postgres "$CLUSTER" 2>/dev/null || $SUDO chown postgres "$CLUSTER"
chmod 700 "$CLUSTER"

cleanup() {
  as_postgres "$PG_BIN/pg_ctl" -D "$CLUSTER/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$CLUSTER" 2>/dev/null || $SUDO rm -rf "$CLUSTER"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

as_postgres "$PG_BIN/initdb" -D "$CLUSTER/data" -A trust -U postgres -E UTF8 --no-locale >/dev/null
# fsync stays on: the crash tests are about durability. Enough connections for the tests' nodes and children.
as_postgres "$PG_BIN/pg_ctl" -D "$CLUSTER/data" -l "$CLUSTER/log" -w \
  -o "-p $PORT -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=128MB" start >/dev/null

export FORGEFOLD_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/postgres"
export FORGEFOLD_TEST_PG_BIN="$PG_BIN"
echo "with-postgres: PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on port $PORT" >&2
set +e
"$@"
status=$?
set -e
exit "$status"
