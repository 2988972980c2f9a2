#!/usr/bin/env bash
# Side by side with the AWS Architecture Blog's simulator ("Exponential Backoff And Jitter",
# github.com/aws-samples/aws-arch-backoff-simulator, src/backoff_simulator.py): speed on the
# original's own parameters, and its means against ours with z-scores.
#
#   benches/aws_backoff_compare.sh PATH_TO_YOUR_CLONE [RUNS] [--save]
#
# PATH_TO_YOUR_CLONE is a clone of aws-samples/aws-arch-backoff-simulator (nothing of it is
# copied into this project). RUNS (default 100, the original's) is the runs per (clients,
# policy) of the statistical comparison. --save writes the original's means to
# benches/aws_backoff_compare.csv, the file the README's side-by-side table is checked against.
#
# The original needs only Python's standard library (heapq, random), so no venv is made. It is
# Python 2; the one change that makes it run on Python 3 is `xrange` -> `range` (sed on a
# temporary copy). It writes no plot (the blog's charts were drawn elsewhere); its per-write
# timestamp files (ts_*) are part of its run time in the speed test and go to a temporary
# folder. For the statistics, a second temporary copy also drops its final `run()` call, and a
# small driver below imports it and calls its own setup_sim and run_sim once per run to keep
# every run's calls and time (the original prints only means, truncated to integers).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -lt 1 || ! -f $1/src/backoff_simulator.py ]]; then
  echo "usage: $0 PATH_TO_CLONE_OF_aws-arch-backoff-simulator [RUNS] [--save]" >&2
  exit 2
fi
clone=$(cd "$1" && pwd)
runs=${2:-100}
save=${3:-}
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet
simulate=$PWD/target/release/simulate
cores=$(nproc)

# Our config with the original's five policies (it has no constant backoff) and RUNS runs.
ours_config() {
  sed -e "s/^runs = .*/runs = $1/" \
      -e 's/^policies = .*/policies = ["exponential", "decorrelated_jitter", "equal_jitter", "full_jitter", "none"]/' \
      configs/aws-backoff.toml > "$work/aws-backoff.toml"
}

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
echo "CPU: $cpu, $cores cores; $("$python" --version 2>&1)"
printf '| program | threads | wall time | CPU time | speed-up (wall) |\n|---|---:|---:|---:|---:|\n'
printf '| original (Python) | 1 | %.1f s | %.1f s | 1x |\n' "$original_wall" "$original_cpu"
awk -v o="$original_wall" -v w="$one_wall" -v c="$one_cpu" \
  'BEGIN { printf "| simulate | 1 | %.2f s | %.2f s | %.0fx |\n", w, c, o / w }'
awk -v o="$original_wall" -v w="$all_wall" -v c="$all_cpu" -v n="$cores" \
  'BEGIN { printf "| simulate | %d | %.2f s | %.2f s | %.0fx |\n", n, w, c, o / w }'

echo
echo "== statistics: $runs runs per (clients, policy), per-run values from both"
sed -e 's/\bxrange\b/range/g' -e 's/^run()$//' "$clone/src/backoff_simulator.py" > "$work/aws_model.py"
cat > "$work/driver.py" <<'EOF'
# Runs the original's own setup_sim and run_sim once per run; prints the mean and standard
# error of its calls and time per (clients, policy).
import io, math, random, sys
import aws_model
runs = int(sys.argv[1])
random.seed(2015)
names = {"Exponential": "exponential", "Decorr": "decorrelated_jitter",
         "EqualJitter": "equal_jitter", "FullJitter": "full_jitter", "None": "none"}
print("clients,policy,metric,runs,mean,standard_error")
for i in range(1, 20):
    clients = i * 10
    for cls, name in aws_model.backoff_types:
        calls, times = [], []
        for _ in range(runs):
            stats = aws_model.Stats()
            queue, stats = aws_model.setup_sim(clients, cls, io.StringIO(), stats)
            times.append(aws_model.run_sim(queue))
            calls.append(stats.calls)
        for metric, values in (("writes", calls), ("completion_ms", times)):
            mean = sum(values) / runs
            sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (runs - 1))
            print(f"{clients},{names[name]},{metric},{runs},{mean!r},{sd / math.sqrt(runs)!r}")
EOF
(cd "$work" && "$python" driver.py "$runs" > original.csv)
if [[ $runs == 100 ]]; then
  ours_summary=output/aws-backoff/contention_summary.csv   # the committed run, seed 42
else
  ours_config "$runs"
  "$simulate" --quiet --config "$work/aws-backoff.toml" --out "$work/ours_stats"
  ours_summary=$work/ours_stats/contention_summary.csv
fi
if [[ $save == --save ]]; then
  cp "$work/original.csv" benches/aws_backoff_compare.csv
  echo "wrote benches/aws_backoff_compare.csv"
fi
"$python" - "$work/original.csv" "$ours_summary" <<'EOF'
# Both tables side by side with z = (ours - original) / sqrt(se_ours^2 + se_original^2).
import csv, math, sys
def load(path):
    return {(int(r["clients"]), r["policy"], r["metric"]): (float(r["mean"]), float(r["standard_error"]))
            for r in csv.DictReader(open(path)) if r["metric"] in ("writes", "completion_ms")}
original, ours = load(sys.argv[1]), load(sys.argv[2])
policies = ["none", "exponential", "full_jitter", "equal_jitter", "decorrelated_jitter"]
tolerance = 3.7   # two-sided, Bonferroni over 190 comparisons: family-wise false alarm < 5%
worst, beyond = 0.0, 0
for metric, unit in (("writes", "write calls"), ("completion_ms", "completion time, ms")):
    print(f"\n{unit}: original ± se | simulate ± se | z")
    print("| clients | policy | original | simulate | z |\n|---:|---|---:|---:|---:|")
    for clients in range(10, 200, 10):
        for policy in policies:
            (a, sa), (b, sb) = original[(clients, policy, metric)], ours[(clients, policy, metric)]
            z = (b - a) / math.hypot(sa, sb)
            worst, beyond = max(worst, abs(z)), beyond + (abs(z) > tolerance)
            print(f"| {clients} | {policy} | {a:.1f} ± {sa:.1f} | {b:.1f} ± {sb:.1f} | {z:+.2f} |")
print(f"\nlargest |z| = {worst:.2f} over {2 * 19 * len(policies)} comparisons; "
      f"{beyond} beyond the tolerance |z| <= {tolerance}")
sys.exit(1 if beyond else 0)
EOF
