#!/usr/bin/env bash
# Alternating A/B runs of two or more builds of `benches/load.rs` (the machine's speed drifts
# by tens of per cent within minutes, so the builds take turns, ROUNDS times each).
#
#   benches/load_ab.sh [-r ROUNDS] [-f FILTER] BINARY...
#
# BINARY: a copy of the bench executable of each build (`cargo bench --bench load --no-run`
# prints its path; copy it before building the next). Each round runs every BINARY once on
# the cases whose name contains FILTER (default: both); each run prints the median and
# fastest of its 5 samples. At the end, per BINARY and case: the minimum and the median over
# the rounds of those medians (events per second per thread, millions) and of the user CPU
# seconds of the binary's whole run (every case selected, each run 7 times: once to count
# its events, once to warm up, 5 samples), and the load average before and after.
set -euo pipefail
rounds=7
filter=
while getopts "r:f:" option; do
  case $option in
    r) rounds=$OPTARG ;;
    f) filter=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [[ $# -lt 1 ]]; then
  echo "usage: $0 [-r ROUNDS] [-f FILTER] BINARY..." >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
  for index in $(seq $#); do
    binary=${!index}
    TIMEFORMAT='%3U'
    { time "$binary" $filter > "$work/out" 2>/dev/null; } 2> "$work/user"
    awk -v b="$index" -v u="$(cat "$work/user")" '/^load\// {
      for (i = 1; i <= NF; i++) if ($i ~ /Mevents/) rate = $(i - 1);
      print b, $1, rate, u }' "$work/out" >> "$work/results"
  done
  echo "round $round done (load average $(cut -d' ' -f1 /proc/loadavg))"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/results" "$@" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
binaries = sys.argv[2:]
for case in sorted({row[1] for row in rows}):
    print(case)
    for index, binary in enumerate(binaries, 1):
        rates = [float(r[2]) for r in rows if r[0] == str(index) and r[1] == case]
        users = [float(r[3]) for r in rows if r[0] == str(index) and r[1] == case]
        print(f"  {binary}: M events/s per thread at the median sample: max {max(rates):.1f}, "
              f"median {statistics.median(rates):.1f}; user s of the whole run: "
              f"min {min(users):.2f}, median {statistics.median(users):.2f} ({len(rates)} rounds)")
PY
