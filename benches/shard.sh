#!/usr/bin/env bash
# Sharded runs against one process: the same run as one process on N threads, and as N
# shards (`--shard K/N`, one thread each) on N processes at once followed by their merge;
# the merged folder is checked to be byte-identical to the one process's. Prints the CPU
# (lscpu) and a Markdown table of the best of REPEAT wall times (docs/performance.md).
#
#   benches/shard.sh                                   # brooker-collapse at 2000 runs, N = 2
#   N=4 REPEAT=5 benches/shard.sh configs/capacity-drop.toml --runs 50
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
N=${N:-2}
REPEAT=${REPEAT:-3}
if [[ $# -eq 0 ]]; then
  set -- configs/brooker-collapse.toml --runs 2000
fi
cargo build --release --locked --quiet
bin=$PWD/target/release/simulate
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
best() { sort -g | head -1; }

lscpu | sed -n 's/^Model name: *//p' | head -1 | sed 's/^/CPU: /'
echo "cores: $(nproc); command: simulate $*"
one=() sharded=() merged=()
for _ in $(seq "$REPEAT"); do
  rm -rf "$work"/*
  start=$(now)
  "$bin" "$@" --quiet --threads "$N" --out "$work/one"
  one+=("$(echo "$(now) - $start" | bc -l)")
  start=$(now)
  seq 0 $((N - 1)) | xargs -P "$N" -I{} "$bin" "$@" --quiet --threads 1 \
    --shard "{}/$N" --out "$work/shard-{}"
  middle=$(now)
  "$bin" merge --quiet "$work"/shard-* --out "$work/merged"
  sharded+=("$(echo "$middle - $start" | bc -l)")
  merged+=("$(echo "$(now) - $middle" | bc -l)")
  # A run's report names its folder only through the way up to the docs; both are in $work.
  diff -r "$work/one" "$work/merged" >/dev/null
done
t_one=$(printf '%s\n' "${one[@]}" | best)
t_shards=$(printf '%s\n' "${sharded[@]}" | best)
t_merge=$(printf '%s\n' "${merged[@]}" | best)
total=$(echo "$t_shards + $t_merge" | bc -l)
printf '\n| run | one process, %d threads (s) | %d shards on %d processes (s) | merge (s) | one process / shards and merge |\n' "$N" "$N" "$N"
printf '| --- | ---: | ---: | ---: | ---: |\n'
printf '| `simulate %s` | %.2f | %.2f | %.2f | %.2f |\n' "$*" "$t_one" "$t_shards" "$t_merge" \
  "$(echo "$t_one / $total" | bc -l)"
echo "merged output byte-identical to the one process's: yes (diff -r, every repeat)"
