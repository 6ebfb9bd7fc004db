#!/usr/bin/env bash
# Prints the JavaScript source of one of the pinned Node's own modules, with
# line numbers, exactly as the binary carries it: the text that `NODE:` notes
# cite as https://github.com/nodejs/node/blob/v26.12.1/lib/<module>.js#L<n>.
# Stored copies of nodejs/node may be at another version; this one cannot be.
#
#   scripts/node-source.sh internal/webstreams/readablestream | sed -n 3061,3088p
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: scripts/node-source.sh MODULE   (such as internal/abort_controller)" >&2
  exit 2
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node="$("$root/scripts/install-node.sh")"
# The module id goes in through the environment, never into the program text.
NODESEM_MODULE="$1" "$node" --expose-internals --no-warnings -e '
  const { internalBinding } = require("internal/test/binding");
  const source = internalBinding("builtins").natives[process.env.NODESEM_MODULE];
  if (typeof source !== "string") {
    process.stderr.write(`no built-in module ${process.env.NODESEM_MODULE} in this Node\n`);
    process.exit(1);
  }
  source.split("\n").forEach((line, i) => process.stdout.write(`${i + 1}\t${line}\n`));
'
