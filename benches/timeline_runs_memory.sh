#!/usr/bin/env bash
# The timeline model's memory over replications: configs/mobile-network.toml (10,000 payments,
# three strategies) at --runs 10 and --runs 1000, each on one thread. Prints, for each, the
# peak resident memory of the process (GNU time's %M), the wall time, the rows of timeline.csv
# and its size, and the rows of summary.csv (which do not grow with the runs); then the growth
# per timeline.csv row between the two. Fails (exit 1) if a row costs more than 2 KiB: the
# summary over the runs must hold running sums per cell and metric, and a run must keep its
# counters and percentiles only (a latency histogram per row would be tens of KiB). With
# BASELINE=PATH, the binary at PATH (e.g. an older build) is measured the same way first,
# for comparison only (it does not decide the exit status).
#
#   benches/timeline_runs_memory.sh
#   BASELINE=/tmp/old/target/release/simulate benches/timeline_runs_memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ ! -x /usr/bin/time ]]; then
  echo "$0 needs GNU time (/usr/bin/time; Debian package time)" >&2
  exit 2
fi
echo "run $(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
measure() {
  local binary=$1 prefix=$2
  for runs in 10 1000; do
    # GNU time: %M the peak resident set in KiB, %e the wall seconds.
    /usr/bin/time -f '%M %e' -o "$work/${prefix}time-$runs" "$binary" \
      --config configs/mobile-network.toml --runs "$runs" --out "$work/${prefix}out-$runs" \
      --threads 1 --quiet
  done
}
if [[ -n "${BASELINE:-}" ]]; then
  measure "$BASELINE" baseline-
  for runs in 10 1000; do
    read -r peak wall < "$work/baseline-time-$runs"
    echo "baseline $BASELINE --runs $runs: peak $(awk "BEGIN { printf \"%.1f\", $peak / 1024 }") MiB resident, $wall s wall"
  done
fi
measure target/release/simulate ""
echo "this build ($(git rev-parse --short HEAD)):"
python3 - "$work" <<'PY'
import os, sys
work = sys.argv[1]
peaks, rows = {}, {}
for runs in ("10", "1000"):
    peak, wall = open(f"{work}/time-{runs}").read().split()
    peaks[runs] = int(peak)
    timeline = f"{work}/out-{runs}/timeline.csv"
    rows[runs] = sum(1 for _ in open(timeline)) - 1
    summary = sum(1 for _ in open(f"{work}/out-{runs}/summary.csv")) - 1
    print(f"--runs {runs:>4}: peak {int(peak) / 1024:.1f} MiB resident, {wall} s wall, "
          f"{rows[runs]:,} rows of timeline.csv ({os.path.getsize(timeline) / 1024:.0f} KiB), "
          f"{summary} rows of summary.csv")
per_row = (peaks["1000"] - peaks["10"]) * 1024 / (rows["1000"] - rows["10"])
print(f"growth per timeline.csv row: {per_row:.0f} bytes")
if per_row > 2048:
    sys.exit("memory grew by more than 2 KiB per run and cell")
PY
