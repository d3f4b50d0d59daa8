#!/usr/bin/env bash
# Empties what a first start fills on this machine, so the next start is a fresh machine's:
# hookstream's cache and state, Maven's repository, Go's module and build caches, npm's cache,
# and the Debian packages the stack and the tests install (redis-server, chromium). Stops the
# machine's stack first. Destructive for this machine's caches: it asks for --yes.
set -euo pipefail
[ "${1:-}" = --yes ] || { echo "usage: $0 --yes   (empties this machine's caches; see the header)" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
(cd "$repo" && npx hookstream stack down --force) || true
go clean -modcache -cache 2>/dev/null || true
rm -rf "${XDG_CACHE_HOME:-$HOME/.cache}/hookstream" "${XDG_STATE_HOME:-$HOME/.local/state}/hookstream" \
  "$HOME/.m2/repository" "$repo/.hookstream"
npm cache clean --force 2>/dev/null
if [ "$(id -u)" = 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get purge -y -q redis-server redis-tools chromium chromium-common >/dev/null 2>&1 || true
  apt-get autoremove -y -q >/dev/null 2>&1 || true
fi
echo "purged: hookstream cache and state, ~/.m2/repository, Go caches, npm cache, redis-server, chromium"
