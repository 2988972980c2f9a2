#!/usr/bin/env bash
# Instructions per two runs (callgrind: repeatable whatever the load) of two builds of
# `simulate` on load configs, one thread: each build at 1 and 3 runs, and their difference
# (start-up, configuration, report writing and the traces of run 0, the same at both sizes,
# cancel out). For a change meant to keep the load loop's speed:
#
#   benches/load_instructions_ab.sh OLD_BINARY NEW_BINARY   (needs valgrind)
#
# Run from the repository's root (the workloads are the shipped configs).
set -euo pipefail
old=${1:?old binary}
new=${2:?new binary}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() { # binary, config, runs: instructions of the whole process
  valgrind --tool=callgrind --callgrind-out-file="$out/callgrind" "$1" --quiet --config "$2" \
    --runs "$3" --threads 1 --out "$out/run" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(date -u +%FT%TZ)"
echo "# old: $old; new: $new"
for config in configs/capacity-drop.toml configs/lock-expiry-under-load.toml; do
  for which in old new; do
    binary=$old
    [ "$which" = new ] && binary=$new
    one=$(count "$binary" "$config" 1)
    three=$(count "$binary" "$config" 3)
    echo "$config $which: 1 run $one, 3 runs $three, per two runs $((three - one))"
  done
done
