#!/usr/bin/env bash
# Side by side with the AWS Architecture Blog's simulator ("Exponential Backoff And Jitter",
# github.com/aws-samples/aws-arch-backoff-simulator, src/backoff_simulator.py): speed on the
# original's own parameters, and its means against ours with z-scores.
#
#   benches/aws_backoff_compare.sh PATH_TO_YOUR_CLONE [RUNS] [--save]
#
# PATH_TO_YOUR_CLONE is a clone of aws-samples/aws-arch-backoff-simulator (nothing of it is
# copied into this project). RUNS (default 300) is the runs per (clients, policy) of the
# statistical comparison, on each side. --save writes the comparison (both sides' means and
# standard errors, the z-scores and the differences detectable) to
# benches/aws_backoff_compare.csv, the file docs/validation.md's side-by-side table is made from.
#
# Environment: ORIGINAL_CSV=FILE takes the original's means from FILE (an earlier run of
# benches/aws_backoff_original.py with the same RUNS) instead of running it again;
# SKIP_SPEED=1 skips the timing; SKIP_STATISTICS=1 stops after it (benches/speed_record.sh);
# CALLGRIND=1 also counts the instructions `simulate` executes on a reduced run (the same five
# policies and 19 client counts, 3 runs each, one thread, the whole process) with valgrind's
# callgrind, a count that does not depend on the machine's load, and CALLGRIND=only stops
# after that count; OURS_BASE_MS=X runs ours with base_ms = X instead of 5 (2.5 is the
# exponent off by one, the first retry waiting base_ms: a mistake the comparison must catch).
#
# The original needs only Python's standard library (heapq, random), so no venv is made. It is
# Python 2; the one change that makes it run on Python 3 is `xrange` -> `range` (sed on a
# temporary copy). It writes no plot (the blog's charts were drawn elsewhere); its per-write
# timestamp files (ts_*) are part of its run time in the speed test and go to a temporary
# folder. For the statistics, a second temporary copy also drops its final `run()` call, and
# benches/aws_backoff_original.py imports it and calls its own setup_sim and run_sim once per
# run to keep every run's calls and time (the original prints only means, truncated to
# integers).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -lt 1 || ! -f $1/src/backoff_simulator.py ]]; then
  echo "usage: $0 PATH_TO_CLONE_OF_aws-arch-backoff-simulator [RUNS] [--save]" >&2
  exit 2
fi
clone=$(cd "$1" && pwd)
runs=${2:-300}
save=${3:-}
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet
simulate=$PWD/target/release/simulate
cores=$(nproc)

# Our config with the original's five policies (it has no constant backoff), RUNS runs and
# the base of OURS_BASE_MS if set.
ours_config() {
  sed -e "s/^runs = .*/runs = $1/" \
      -e "s/^base_ms = .*/base_ms = ${OURS_BASE_MS:-5}/" \
      -e 's/^policies = .*/policies = ["exponential", "decorrelated_jitter", "equal_jitter", "full_jitter", "none"]/' \
      configs/aws-backoff.toml > "$work/aws-backoff.toml"
}

if [[ -n ${CALLGRIND:-} ]]; then
  echo "== instructions: simulate on 19 client counts x 5 policies x 3 runs, one thread (callgrind)"
  ours_config 3
  valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
    "$simulate" --quiet --config "$work/aws-backoff.toml" --out "$work/ours-callgrind" --threads 1 2>&1 |
    sed -n 's/^==[0-9]*== Collected : /instructions: /p'
  [[ $CALLGRIND == only ]] && exit 0
  echo
fi

if [[ -z ${SKIP_SPEED:-} ]]; then
  echo "== speed: the original script as published (10..190 clients, 5 policies, 100 runs)"
  mkdir -p "$work/original"
  sed 's/\bxrange\b/range/g' "$clone/src/backoff_simulator.py" > "$work/original/backoff_simulator.py"
  (cd "$work/original" && /usr/bin/time -f "%e %U" -o "$work/original.time" "$python" backoff_simulator.py)
  ours_config 100
  /usr/bin/time -f "%e %U" -o "$work/ours1.time" \
    "$simulate" --quiet --config "$work/aws-backoff.toml" --out "$work/ours1" --threads 1
  /usr/bin/time -f "%e %U" -o "$work/oursN.time" \
    "$simulate" --quiet --config "$work/aws-backoff.toml" --out "$work/oursN" --threads "$cores"
  read -r original_wall original_cpu < "$work/original.time"
  read -r one_wall one_cpu < "$work/ours1.time"
  read -r all_wall all_cpu < "$work/oursN.time"
  cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -n 1)
  avx512=$(grep -q avx512f /proc/cpuinfo && echo "with AVX-512" || echo "without AVX-512")
  echo "CPU: $cpu ($avx512), $cores cores; load average $(cut -d' ' -f1-3 /proc/loadavg); $("$python" --version 2>&1)"
  printf '| program | threads | wall time | CPU time | speed-up (wall) | speed-up (CPU) |\n|---|---:|---:|---:|---:|---:|\n'
  printf '| original (Python) | 1 | %.1f s | %.1f s | 1x | 1x |\n' "$original_wall" "$original_cpu"
  awk -v o="$original_wall" -v oc="$original_cpu" -v w="$one_wall" -v c="$one_cpu" \
    'BEGIN { printf "| simulate | 1 | %.2f s | %.2f s | %.0fx | %.0fx |\n", w, c, o / w, oc / c }'
  awk -v o="$original_wall" -v w="$all_wall" -v c="$all_cpu" -v n="$cores" \
    'BEGIN { printf "| simulate | %d | %.2f s | %.2f s | %.0fx | — |\n", n, w, c, o / w }'
  echo
fi

[[ -n ${SKIP_STATISTICS:-} ]] && exit 0
echo "== statistics: $runs runs per (clients, policy) on each side"
if [[ -n ${ORIGINAL_CSV:-} ]]; then
  cp "$ORIGINAL_CSV" "$work/original.csv"
else
  sed -e 's/\bxrange\b/range/g' -e 's/^run()$//' "$clone/src/backoff_simulator.py" > "$work/aws_model.py"
  "$python" benches/aws_backoff_original.py "$work" "$runs" 2015 > "$work/original.csv"
fi
ours_config "$runs"
"$simulate" --quiet --config "$work/aws-backoff.toml" --out "$work/ours"
status=0
"$python" - "$work/original.csv" "$work/ours/summary.csv" "$work/compare.csv" <<'PYTHON' || status=$?
# Both tables side by side with z = (ours - original) / sqrt(se_ours^2 + se_original^2).
import csv, math, sys
from statistics import NormalDist
def load(path, se):
    return {(int(r["clients"]), r["policy"], r["metric"]): (int(r["runs"]), float(r["mean"]), float(r[se]))
            for r in csv.DictReader(open(path)) if r["metric"] in ("writes", "completion_ms")}
# The original's table names the standard error `standard_error`, our summary.csv `se`.
original, ours = load(sys.argv[1], "standard_error"), load(sys.argv[2], "se")
policies = ["none", "exponential", "full_jitter", "equal_jitter", "decorrelated_jitter"]
metrics = ("writes", "completion_ms")
comparisons = 19 * len(policies) * len(metrics)
# Family-wise false-alarm rate 5% over all comparisons, Bonferroni (valid whatever the
# dependence between them): two-sided, each at 0.05 / 190.
tolerance = NormalDist().inv_cdf(1 - 0.05 / (2 * comparisons))
# The difference that this test finds with probability 90% at one comparison.
detectable_factor = tolerance + NormalDist().inv_cdf(0.9)
rows, worst, beyond = [], 0.0, 0
for metric in metrics:
    for clients in range(10, 200, 10):
        for policy in policies:
            (ra, a, sa), (rb, b, sb) = original[(clients, policy, metric)], ours[(clients, policy, metric)]
            z = (b - a) / math.hypot(sa, sb)
            detectable = detectable_factor * math.hypot(sa, sb) / a
            worst, beyond = max(worst, abs(z)), beyond + (abs(z) > tolerance)
            rows.append([clients, policy, metric, ra, repr(a), repr(sa), rb, repr(b), repr(sb),
                         f"{z:.4f}", f"{detectable:.4f}"])
with open(sys.argv[3], "w", newline="") as out:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["clients", "policy", "metric", "original_runs", "original_mean",
                     "original_standard_error", "simulate_runs", "simulate_mean",
                     "simulate_standard_error", "z", "detectable_difference"])
    writer.writerows(rows)
for metric, unit in (("writes", "write calls"), ("completion_ms", "completion time, ms")):
    print(f"\n{unit}: original ± se | simulate ± se | z")
    print("| clients | policy | original | simulate | z |\n|---:|---|---:|---:|---:|")
    for row in rows:
        if row[2] == metric:
            a, sa, b, sb = (float(row[i]) for i in (4, 5, 7, 8))
            print(f"| {row[0]} | {row[1]} | {a:.1f} ± {sa:.1f} | {b:.1f} ± {sb:.1f} | {float(row[9]):+.2f} |")
relative = sorted(float(row[10]) for row in rows)
print(f"\nlargest |z| = {worst:.2f} over {comparisons} comparisons; {beyond} beyond the "
      f"tolerance |z| <= {tolerance:.2f} (family-wise false-alarm rate 5%, Bonferroni)")
print(f"difference found with probability 90%: median {100 * relative[len(relative) // 2]:.1f}% "
      f"of the original's mean, largest {100 * relative[-1]:.1f}%")
sys.exit(1 if beyond else 0)
PYTHON
if [[ $save == --save ]]; then
  cp "$work/compare.csv" benches/aws_backoff_compare.csv
  echo "wrote benches/aws_backoff_compare.csv"
fi
exit $status
