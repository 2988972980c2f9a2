#!/usr/bin/env bash
# The load model's memory: one simulated hour at 2,000 payments/s with a metastable collapse
# (benches/load_memory.toml) next to its first 300 s, each on one thread. Prints, for each, the
# peak resident memory of the process (GNU time's %M), the wall time, the payments
# issued and succeeded and the queue's length at the median and at its largest; fails (exit 1)
# if the hour's peak exceeds the 300 s one by more than half, i.e. if memory grew with the
# payments issued (12 times as many) rather than with the requests in flight (the same).
#
#   benches/load_memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed 's/^duration_s = 3600.0$/duration_s = 300.0/' benches/load_memory.toml > "$work/300.toml"
cp benches/load_memory.toml "$work/3600.toml"
grep -q '^duration_s = 300.0$' "$work/300.toml"
if [[ ! -x /usr/bin/time ]]; then
  echo "$0 needs GNU time (/usr/bin/time; Debian package time)" >&2
  exit 2
fi
for seconds in 300 3600; do
  # GNU time: %M the peak resident set in KiB, %e the wall seconds.
  /usr/bin/time -f '%M %e' -o "$work/time-$seconds" target/release/simulate \
    --config "$work/$seconds.toml" --out "$work/out-$seconds" --threads 1 --quiet
done
python3 - "$work" <<'PY'
import csv, sys
work = sys.argv[1]
peaks = {}
for seconds in ("300", "3600"):
    peak, wall = open(f"{work}/time-{seconds}").read().split()
    peaks[seconds] = int(peak)
    row = next(csv.DictReader(open(f"{work}/out-{seconds}/load.csv")))
    print(f"{seconds:>5} s simulated: peak {int(peak) / 1024:.1f} MiB resident, {wall} s wall, "
          f"{int(row['payments']):,} payments, {int(row['succeeded']):,} succeeded, "
          f"{int(row['events']):,} events, queue median {row['queue_length_p50']} "
          f"max {row['queue_length_max']}, recovered {row['recovered']}")
ratio = peaks["3600"] / peaks["300"]
print(f"the hour's peak over the 300 s peak: {ratio:.2f}")
if ratio > 1.5:
    sys.exit("memory grew with the run's length")
PY
