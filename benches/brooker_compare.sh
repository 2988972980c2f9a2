#!/usr/bin/env bash
# Side by side with Marc Brooker's two simulations (github.com/mbrooker/simulator_example):
# retry_sim/retry_sim.py ("Fixing retries with token buckets and circuit breakers", 2022) and
# simple_collapse_sim/sim.py (congestive collapse under a load spike, 2023). What they simulate
# is written down in docs/brooker-semantics.md.
#
#   benches/brooker_compare.sh PATH_TO_YOUR_CLONE [RETRY_RUNS] [COLLAPSE_RUNS] [--save]
#   benches/brooker_compare.sh --saved
#
# It runs the originals (below), then configs/brooker-retry.toml and
# configs/brooker-collapse.toml (10 and 100 runs) with `simulate`, and prints the tables side
# by side with a Welch t for each difference of means and the Bonferroni tolerance
# (benches/brooker_compare.py says why), then the CPU time of both. It exits non-zero if a
# comparison is beyond its tolerance. --saved skips the originals (20 to 40 CPU minutes) and
# compares with the committed reference CSVs.
#
# PATH_TO_YOUR_CLONE is a clone of mbrooker/simulator_example (nothing of it is copied into
# this project; the reference numbers were made at its commit bbfe394). RETRY_RUNS (default 10)
# is the seeded runs per (failure rate, policy) cell of retry_sim, at the failure rates RATES
# (environment, default 0,0.01,0.05,0.1,0.2,0.3,0.4,0.5 of the script's seventeen; RATES=all
# for all of them, about twice the time), COLLAPSE_RUNS (default 100) the seeded runs per
# client of the spike (the original averages 10 unseeded runs). --save
# writes the original's numbers to benches/brooker_retry_reference.csv,
# benches/brooker_collapse_reference.csv (per-run summaries: goodput per window, recovery)
# and benches/brooker_collapse_series.csv (mean per second), the files docs/validation.md's
# tables are made from (and tests/load/brooker.rs compares this build with). JOBS (environment, default: all cores) runs that many Python processes.
#
# The originals need only Python's standard library, so no venv is made (as for the AWS
# comparison). retry_sim runs as published at its newest commit except for one line: the
# file ends by running a later experiment, `run_sims_retry_serial(10.0)`, which a `sed` deletes
# from a temporary copy; benches/brooker_reference.py then imports it and builds each cell of
# its `run_sims(10.0)` (the blog's "Simulating Performance") with the module's own classes, one
# seed per run. (The version most code indexes hold, 7aa858b, does not run: missing imports and
# a missing argument to `Call`; upstream fixed both in fa8981e, which is what runs here.) For
# sim.py, a `sed` deletes the lines at its end that print a header and run its four experiments; the
# helper runs `run_sim_spike` for both clients and records the requests in progress at each
# second (the script's own `concurrency` column is not per second). Their R plotting is not run.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
jobs=${JOBS:-$(nproc)}
rates=${RATES:-0,0.01,0.05,0.1,0.2,0.3,0.4,0.5}
[[ $rates == all ]] && rates=
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ ${1:-} == --saved ]]; then
  cp benches/brooker_retry_reference.csv "$work/retry.csv"
  cp benches/brooker_collapse_reference.csv "$work/collapse.csv"
  original_cpu="(not run: --saved)"
else
  clone=${1:-}
  if [[ -z $clone || ! -f $clone/retry_sim/retry_sim.py || ! -f $clone/simple_collapse_sim/sim.py ]]; then
    echo "usage: $0 PATH_TO_CLONE_OF_mbrooker/simulator_example [RETRY_RUNS] [COLLAPSE_RUNS] [--save] | $0 --saved" >&2
    exit 2
  fi
  clone=$(cd "$clone" && pwd)
  retry_runs=${2:-10}
  collapse_runs=${3:-100}
  save=${4:-}
  if commit=$(git -C "$clone" rev-parse --short HEAD 2>/dev/null); then
    echo "original: mbrooker/simulator_example at $commit (reference numbers made at bbfe394)"
  fi

  # The originals, on temporary copies, with only their driver lines removed.
  mkdir -p "$work/model"
  cp "$clone/retry_sim/client.py" "$clone/retry_sim/retry_strategy.py" "$work/model/"
  sed '/^run_sims_retry_serial(10.0)$/d' "$clone/retry_sim/retry_sim.py" > "$work/model/retry_sim.py"
  sed '/^StatData.header()$/,$d' "$clone/simple_collapse_sim/sim.py" > "$work/model/collapse_sim.py"
  if grep -q '^run_sims' "$work/model/retry_sim.py" || grep -q '^run_multiple_and_average_stats' "$work/model/collapse_sim.py"; then
    echo "the clone's scripts end differently from bbfe394's; see docs/brooker-semantics.md" >&2
    exit 1
  fi

  echo "== original retry_sim: $retry_runs seeded runs per (failure rate, policy), $jobs processes"
  /usr/bin/time -f "%e %U" -o "$work/retry.time" \
    "$python" benches/brooker_reference.py retry "$work/model" "$retry_runs" "$jobs" $rates > "$work/retry.csv"
  echo "== original simple_collapse_sim: $collapse_runs seeded runs per client, $jobs processes"
  /usr/bin/time -f "%e %U" -o "$work/collapse.time" \
    "$python" benches/brooker_reference.py collapse "$work/model" "$collapse_runs" "$jobs" \
    "$work/collapse_series.csv" > "$work/collapse.csv"
  original_cpu=$(awk '{ cpu += $2 } END { printf "%.0f s", cpu }' "$work/retry.time" "$work/collapse.time")

  if [[ $save == --save ]]; then
    cp "$work/retry.csv" benches/brooker_retry_reference.csv
    cp "$work/collapse.csv" benches/brooker_collapse_reference.csv
    cp "$work/collapse_series.csv" benches/brooker_collapse_series.csv
    echo "wrote benches/brooker_retry_reference.csv, benches/brooker_collapse_reference.csv, benches/brooker_collapse_series.csv"
  fi
fi

echo "== simulate: configs/brooker-retry.toml and configs/brooker-collapse.toml"
cargo build --release --locked --quiet
for name in retry collapse; do
  /usr/bin/time -f "%e %U" -o "$work/ours-$name.time" ./target/release/simulate --quiet \
    --config "configs/brooker-$name.toml" --out "$work/ours-$name" --threads 1
done
ours_cpu=$(awk '{ cpu += $2 } END { printf "%.1f s", cpu }' "$work/ours-retry.time" "$work/ours-collapse.time")

status=0
echo
echo "== the harness against closed forms (no_retries, three_retries)"
"$python" benches/brooker_compare.py closed-forms "$work/retry.csv" | tail -n 1 || status=1
echo
echo "== retry_sim: original | simulate (mean ± standard error over the runs) | Welch t"
"$python" benches/brooker_compare.py retry "$work/retry.csv" "$work/ours-retry/load.csv" || status=1
echo
echo "== simple_collapse_sim, per second over windows [from, to) s: original | simulate | Welch t"
"$python" benches/brooker_compare.py collapse "$work/collapse.csv" "$work/ours-collapse/load_timeseries.csv" || status=1
echo
echo "CPU time: original (Python $("$python" -c 'import platform; print(platform.python_version())'), ${retry_runs:-saved} runs per retry_sim cell at ${rates:-all} failure rates, ${collapse_runs:-saved} collapse runs per client) $original_cpu;" \
  "simulate (1 thread; the two files: 4 policies x (17 swept failure rates + the file's own) x 10 runs, 2 clients x 100 runs) $ours_cpu"
exit $status
