#!/usr/bin/env bash
# Instructions per payment (callgrind: repeatable whatever the load) of two builds of
# `simulate` on timeline configs, one thread: each build at SMALL and LARGE payments, and their
# difference per payment (start-up, configuration, report writing and the traces, the same at
# both sizes, cancel out). For a change meant to keep the event loop's speed:
#
#   benches/timeline_instructions_ab.sh OLD_BINARY NEW_BINARY   (needs valgrind)
#
# Run from the repository's root (the workloads are the shipped configs).
set -euo pipefail
old=${1:?old binary}
new=${2:?new binary}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() { # binary, config, payments: instructions of the whole process
  valgrind --tool=callgrind --callgrind-out-file="$out/callgrind" "$1" --quiet --config "$2" \
    --payments "$3" --threads 1 --out "$out/run" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(date -u +%FT%TZ)"
echo "# old: $old; new: $new"
for spec in "configs/mobile-network.toml 20000 60000" "configs/same-key-burst.toml 2000 6000" \
  "configs/redis-vs-transaction.toml 5000 15000" "configs/retry-storm.toml 2000 6000"; do
  read -r config small large <<<"$spec"
  for which in old new; do
    binary=$old
    [ "$which" = new ] && binary=$new
    s=$(count "$binary" "$config" "$small")
    l=$(count "$binary" "$config" "$large")
    echo "$config $which: $small payments $s, $large payments $l, per payment $(((l - s) / (large - small)))"
  done
done
