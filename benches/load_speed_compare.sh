#!/usr/bin/env bash
# The load model's speed side by side with Marc Brooker's two Python simulations
# (github.com/mbrooker/simulator_example), on identical parameters: the same cells, runs and
# durations (docs/performance.md, "Brooker's simulations, side by side").
#
#   benches/load_speed_compare.sh PATH_TO_YOUR_CLONE [RETRY_RUNS] [COLLAPSE_RUNS]
#
# retry_sim: RETRY_RUNS (default 10) seeded runs of each of the 4 policies at each failure
# rate of RATES (environment, default 0,0.1,0.5), one Python process; simulate runs
# configs/brooker-retry.toml with the same runs, policies and failure rates (the first rate as
# the file's own error rate, the others as its sweep), nothing else. simple_collapse_sim:
# COLLAPSE_RUNS (default 50) seeded runs of run_sim_spike for each of its 2 clients, one Python
# process; simulate runs configs/brooker-collapse.toml with runs = COLLAPSE_RUNS. simulate
# runs once with --threads 1 and once on all cores. Both sides write their results (CSV; and
# simulate its charts). It prints the CPU (user + system, children included) and wall times of
# each and their ratios, the processor (and whether it has AVX-512, which the load model does
# not use) and the load average before and after. The defaults take about 3 CPU minutes on
# the Python side. The originals run as benches/brooker_compare.sh runs them (the same
# temporary copies with their driver lines removed, the same harness,
# benches/brooker_reference.py); nothing of them is copied into this project.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
rates=${RATES:-0,0.1,0.5}
clone=${1:-}
retry_runs=${2:-10}
collapse_runs=${3:-50}
if [[ -z $clone || ! -f $clone/retry_sim/retry_sim.py || ! -f $clone/simple_collapse_sim/sim.py ]]; then
  echo "usage: $0 PATH_TO_CLONE_OF_mbrooker/simulator_example [RETRY_RUNS] [COLLAPSE_RUNS]" >&2
  exit 2
fi
clone=$(cd "$clone" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
avx512=$(grep -q -w avx512f /proc/cpuinfo && echo "with AVX-512" || echo "without AVX-512")
echo "processor: $cpu ($avx512), $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# The originals, on temporary copies with only their driver lines removed (as
# benches/brooker_compare.sh does).
mkdir -p "$work/model"
cp "$clone/retry_sim/client.py" "$clone/retry_sim/retry_strategy.py" "$work/model/"
sed '/^run_sims_retry_serial(10.0)$/d' "$clone/retry_sim/retry_sim.py" > "$work/model/retry_sim.py"
sed '/^StatData.header()$/,$d' "$clone/simple_collapse_sim/sim.py" > "$work/model/collapse_sim.py"

# simulate's files on the same parameters.
first=${rates%%,*}
rest=${rates#"$first"}
rest=${rest#,}
sed -e "s/^runs = .*/runs = $retry_runs/" \
  -e "/^\"server.error_rate\" = \[/,/\]/c\\
\"server.error_rate\" = [$rates]" configs/brooker-retry.toml > "$work/retry.toml"
sed "s/^runs = .*/runs = $collapse_runs/" configs/brooker-collapse.toml > "$work/collapse.toml"
cargo build --release --locked --quiet

# `timed NAME COMMAND...`: runs COMMAND, its output to $work/NAME.out, its wall and CPU time
# (user + system, children included) to $work/NAME.time.
timed() {
  local name=$1
  shift
  local TIMEFORMAT='%3R %3U %3S'
  { time "$@" > "$work/$name.out" 2> "$work/$name.err"; } 2> "$work/$name.time"
}

loops_retry=$((retry_runs * 4 * $(tr ',' '\n' <<< "$rates" | wc -l)))
loops_collapse=$((collapse_runs * 2))
echo "== original retry_sim: $loops_retry event loops (4 policies x failure rates $rates x $retry_runs runs), 1 process"
timed py-retry "$python" benches/brooker_reference.py retry "$work/model" "$retry_runs" 1 "$rates"
echo "== original simple_collapse_sim: $loops_collapse event loops (2 clients x $collapse_runs runs), 1 process"
timed py-collapse "$python" benches/brooker_reference.py collapse "$work/model" "$collapse_runs" 1 \
  "$work/collapse_series.csv"
for name in retry collapse; do
  for threads in 1 "$(nproc)"; do
    echo "== simulate: $name, --threads $threads"
    timed "ours-$name-$threads" ./target/release/simulate --quiet --config "$work/$name.toml" \
      --out "$work/ours-$name-$threads" --threads "$threads"
  done
done
for name in retry collapse; do
  for file in "$work/ours-$name-1"/*.csv; do
    if ! cmp -s "$file" "$work/ours-$name-$(nproc)/$(basename "$file")"; then
      echo "simulate gave a different $name $(basename "$file") on 1 and $(nproc) threads" >&2
      exit 1
    fi
  done
done

echo
echo "Python $("$python" -c 'import platform; print(platform.python_version())'); times in seconds (CPU = user + system)"
for name in retry collapse; do
  loops=$([[ $name == retry ]] && echo "$loops_retry" || echo "$loops_collapse")
  awk -v name="$name" -v loops="$loops" -v threads="$(nproc)" '
    FNR == 1 { file++ }
    { wall[file] = $1; cpu[file] = $2 + $3 }
    END {
      printf "%-8s original  1 process:  wall %7.2f  CPU %7.2f  (%.1f ms CPU per event loop)\n",
        name, wall[1], cpu[1], 1000 * cpu[1] / loops
      printf "%-8s simulate  1 thread:   wall %7.2f  CPU %7.2f  (%.2f ms CPU per event loop)\n",
        name, wall[2], cpu[2], 1000 * cpu[2] / loops
      printf "%-8s simulate  %d threads:  wall %7.2f  CPU %7.2f\n", name, threads, wall[3], cpu[3]
      if (cpu[2] > 0 && wall[2] > 0 && wall[3] > 0)
        printf "%-8s ratio original / simulate: CPU %.0fx, wall %.0fx (1 thread), wall %.0fx (%d threads)\n",
          name, cpu[1] / cpu[2], wall[1] / wall[2], wall[1] / wall[3], threads
    }' "$work/py-$name.time" "$work/ours-$name-1.time" "$work/ours-$name-$(nproc).time"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
