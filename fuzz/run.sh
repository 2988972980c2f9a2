#!/usr/bin/env bash
# Runs one fuzz target for a bounded time on one core:
#   fuzz/run.sh TARGET SECONDS      e.g. fuzz/run.sh config 600
# Targets: ack_loss_list, config. Needs a nightly toolchain and cargo-fuzz
# (`rustup toolchain install nightly && cargo install cargo-fuzz`).
# Crashing inputs land in fuzz/artifacts/TARGET/; copy each into tests/fuzz_regressions/TARGET/
# (tests/fuzz_regressions.rs replays every file there in `cargo test`) before fixing it.
set -euo pipefail
cd "$(dirname "$0")"
target=${1:?usage: fuzz/run.sh TARGET SECONDS}
seconds=${2:?usage: fuzz/run.sh TARGET SECONDS}
mkdir -p "corpus/$target"
# Seed the corpus with the committed examples (the shipped config files, typical --p lists).
if [[ -d "seeds/$target" ]]; then
  cp -n seeds/"$target"/* "corpus/$target/" 2>/dev/null || true
fi
# One process on one core (libFuzzer without -jobs), bounded by -max_total_time.
exec cargo +nightly fuzz run "$target" "corpus/$target" -- \
  -max_total_time="$seconds" -max_len=4096 -timeout=10
