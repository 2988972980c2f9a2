#!/usr/bin/env bash
# Records the instruction counts of docs/performance.md (callgrind: a count the machine's load
# does not move; counted again with the same binary it differs slightly, so the docs show it
# to the million), as a log that `cargo xtask docs` makes the table from:
#
#   benches/instructions_record.sh OUT_FOLDER CLONE_OF_AWS_SIMULATOR
#
# CLONE_OF_AWS_SIMULATOR is a clone of aws-samples/aws-arch-backoff-simulator (only its
# presence is checked by benches/aws_backoff_compare.sh here: the reduced run is ours alone).
# It writes OUT_FOLDER/instructions.log, one line per count after the commit:
#   contention: the reduced run of `CALLGRIND=only benches/aws_backoff_compare.sh` (19 client
#               counts x 5 policies x 3 runs, one thread, the whole process);
#   load steady, load capacity-drop: one run of each case of `cargo bench --bench load`
#               (`-- --once FILTER`, the whole process).
# Needs valgrind; takes about a minute on a 2-core machine. benches/speed_record.sh runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -ne 2 ]]; then
  echo "usage: $0 OUT_FOLDER CLONE_OF_AWS_SIMULATOR" >&2
  exit 2
fi
out=$1
aws=$2
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A count as the line `instructions: N` (or callgrind's `Collected : N`) gives it, checked to be
# a number: a run that counted nothing stops the recording instead of writing an empty count.
number() {
  [[ $2 =~ ^[0-9]+$ ]] || { echo "no instruction count for $1" >&2; exit 1; }
  echo "$2"
}
contention=$(number contention \
  "$(CALLGRIND=only benches/aws_backoff_compare.sh "$aws" | sed -n 's/^instructions: //p')")
bench=$(cargo bench --locked --bench load --no-run --message-format=json 2>/dev/null |
  sed -n 's/.*"executable":"\([^"]*\/deps\/load-[^"]*\)".*/\1/p')
# The count of one case of the load bench, run once under callgrind; the bench prints the case
# it ran, so that a filter matching none fails here.
load_case() {
  local output
  output=$(valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.$1" "$bench" --once "$1" 2>&1)
  grep -q "^load/[a-z_0-9]*$1" <<< "$output" || { echo "no load bench case matches $1" >&2; exit 1; }
  number "load $1" "$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' <<< "$output")"
}
steady=$(load_case steady)
capacity_drop=$(load_case capacity)
{
  echo "commit: $(git rev-parse HEAD)$(git diff --quiet HEAD -- src benches Cargo.toml Cargo.lock || echo ' (with uncommitted changes)')"
  echo "contention: $contention instructions"
  echo "load steady: $steady instructions"
  echo "load capacity-drop: $capacity_drop instructions"
} > "$out/instructions.log"
echo "wrote $out/instructions.log"
