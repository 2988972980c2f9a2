#!/usr/bin/env bash
# Times two builds of `simulate` on the same workloads, alternately (old, new, old, new, ...),
# on one thread, and prints each pair's CPU seconds (user + system, /usr/bin/time) and their
# ratio new/old, then the median ratio per workload. For a change meant to keep the speed:
#
#   benches/before_after.sh OLD_BINARY NEW_BINARY [PAIRS]   (default 5 pairs)
#
# Run from the repository's root (the workloads are the shipped configs).
set -euo pipefail
old=${1:?old binary}
new=${2:?new binary}
pairs=${3:-5}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
workloads=(
  "--config configs/aws-backoff.toml"
  "--config configs/capacity-drop.toml"
  "--config configs/brooker-collapse.toml"
  "--config configs/redis-vs-transaction.toml --payments 100000"
  "--config configs/same-key-burst.toml --payments 100000"
  "--requests 300000000"
)
cpu() { # binary, workload: CPU seconds of one run
  /usr/bin/time -f "%U %S" -o "$scratch/time" "$1" --quiet --threads 1 $2 --out "$scratch/out" >/dev/null
  awk '{ printf "%.3f", $1 + $2 }' "$scratch/time"
}
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; $(date -u +%FT%TZ)"
echo "# old: $old; new: $new; $pairs pairs per workload, alternating"
for workload in "${workloads[@]}"; do
  ratios=()
  for _ in $(seq "$pairs"); do
    a=$(cpu "$old" "$workload"); b=$(cpu "$new" "$workload")
    ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')
    ratios+=("$ratio")
    echo "$workload: old $a s, new $b s, new/old $ratio"
  done
  median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  echo "$workload: median new/old $median"
done
