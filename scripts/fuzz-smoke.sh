#!/usr/bin/env bash
# Runs every libFuzzer target of fuzz/ for a short, bounded time on the stable toolchain
# (`cargo fuzz run -s none`), installing cargo-fuzz from crates.io if it is missing. CI calls
# it after the tests; an overnight run is the same command with a longer -max_total_time.
#
#   scripts/fuzz-smoke.sh [SECONDS_PER_TARGET]     (default 15)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
seconds="${1:-15}"
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz" >&2
  cargo install --quiet --locked cargo-fuzz
fi
corpus="$(mktemp -d)"
trap 'rm -rf "$corpus"' EXIT
for target in parse_text roundtrip differential js_escape engines_never_panic; do
  mkdir -p "$corpus/$target"
  extra=()
  if [ "$target" = parse_text ]; then
    cp fuzz/corpus-seeds/parse_text/* "$corpus/$target/"
    extra=(-dict="$root/fuzz/dict/scenario.dict")
  fi
  echo "== fuzz $target for ${seconds}s"
  log="$corpus/$target.log"
  status=0
  cargo fuzz run -s none "$target" "$corpus/$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 "${extra[@]}" >"$log" 2>&1 || status=$?
  grep -E "^stat::(number_of_executed_units|peak_rss_mb)" "$log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$log" >&2
    echo "fuzz target $target failed (exit $status); the input is in fuzz/artifacts/$target/" >&2
    exit 1
  fi
done
