#!/usr/bin/env bash
# Instructions per payment of the timeline model (callgrind: repeatable whatever the load), on
# configs/mobile-network.toml, one thread: the whole process at SMALL and LARGE payments, and
# their difference per payment (start-up, configuration and report writing cancel out).
#
# Usage: benches/timeline_instructions.sh [SMALL] [LARGE] [CONFIG]   (needs valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
small=${1:-20000}
large=${2:-60000}
config=${3:-configs/mobile-network.toml}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cargo build --release --quiet
count() {
  valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$1" ./target/release/simulate \
    --quiet --config "$config" --payments "$1" --threads 1 --out "$out/run.$1" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
small_count=$(count "$small")
large_count=$(count "$large")
echo "$config, 1 thread:"
echo "  $small payments: $small_count instructions"
echo "  $large payments: $large_count instructions"
echo "  per payment: $(((large_count - small_count) / (large - small))) instructions"
