#!/usr/bin/env bash
# Make sure PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379) answer; start them,
# or install them from Debian's packages, when they do not. Used by `make test` and CI.
set -euo pipefail

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_for() {  # name port
  for _ in $(seq 1 60); do port_open "$2" && return 0; sleep 0.5; done
  echo "ensure_services: $1 did not come up on 127.0.0.1:$2" >&2
  return 1
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_install() {
  echo "ensure_services: installing $* from Debian's packages" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if ! port_open 5432; then
  if ! command -v pg_ctlcluster >/dev/null; then
    apt_install postgresql
    # A fresh cluster asks for passwords on TCP; tests connect as postgres without one.
    for hba in /etc/postgresql/*/main/pg_hba.conf; do
      as_root sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/' "$hba"
    done
  fi
  version=$(ls /etc/postgresql | sort -n | tail -n 1)
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  wait_for PostgreSQL 5432
fi

if ! port_open 6379; then
  command -v redis-server >/dev/null || apt_install redis-server
  mkdir -p /tmp/podium-redis
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /tmp/podium-redis --logfile /tmp/podium-redis/redis.log
  wait_for Redis 6379
fi
echo "ensure_services: PostgreSQL and Redis are up"
