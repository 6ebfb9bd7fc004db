#!/bin/bash -eu
# Builds every target of fuzz/ with the sanitizers the infrastructure asks for, and installs each
# binary, with the scenario dictionary and seed corpus where they apply, into $OUT.
cd "$SRC/nodesem"
cargo fuzz build -O --fuzz-dir fuzz
targets=(parse_text roundtrip differential js_escape engines_never_panic)
for target in "${targets[@]}"; do
  cp "fuzz/target/x86_64-unknown-linux-gnu/release/$target" "$OUT/"
done
cp fuzz/dict/scenario.dict "$OUT/parse_text.dict"
(cd fuzz/corpus-seeds/parse_text && zip -q "$OUT/parse_text_seed_corpus.zip" ./*)
