#!/usr/bin/env bash
# The timeline model's speed against a plain pure-Python event simulation of the same
# semantics (benches/timeline_reference.py), one thread each, on configs/mobile-network.toml:
# payments per second of each, the ratio, and a check that their rates agree statistically
# (double-charge and replay rates per strategy within 3 standard errors; the two use different
# random streams, so they agree in distribution, not payment by payment).
#
# Usage: benches/timeline_compare.sh [RUST_PAYMENTS] [PYTHON_PAYMENTS] [ROUNDS]
#
# With PORTABLE=1 it times `simulate` built with the `portable-scan` feature: never AVX-512,
# as on a processor without it (eight payments at a time with AVX2 and FMA where the processor
# has them, as most without AVX-512 do). With SCALAR=1, the `scalar-only` feature: one payment
# at a time, as on a processor with neither. The outputs are the same. SIMULATE=path times that
# binary instead (e.g. one built from another commit), building nothing.
#
# The two run alternately ROUNDS times (default 3) and each side's fastest round counts: the
# speed of this kind of shared virtual machine drifts by tens of per cent within minutes
# (the same binary, alone, took 0.41 s to 0.73 s of CPU for the same run), so a single
# round of each, minutes apart, measures the drift as much as the programs.
set -euo pipefail
cd "$(dirname "$0")/.."
rust_payments=${1:-2000000}
python_payments=${2:-50000}
rounds=${3:-3}
scenario=configs/mobile-network.toml
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

simulate=./target/release/simulate
if [[ -n ${SIMULATE:-} ]]; then
  simulate=$SIMULATE
elif [[ -n ${SCALAR:-} ]]; then
  cargo build --release --quiet --features scalar-only
  cp target/release/simulate target/release/simulate-scalar-only
  simulate=./target/release/simulate-scalar-only
elif [[ -n ${PORTABLE:-} ]]; then
  cargo build --release --quiet --features portable-scan
  cp target/release/simulate target/release/simulate-portable-scan
  simulate=./target/release/simulate-portable-scan
fi
[[ -n ${SIMULATE:-} ]] || cargo build --release --quiet
echo "simulate: $simulate"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
  "avx512f: $(grep -qw avx512f /proc/cpuinfo && echo yes || echo no);" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"

# CPU time (user + system) of each, not wall time: on a shared machine wall time measures the
# neighbours too. The Python reference times its own simulation loop (no start-up);
# simulate's time includes its process start-up and writing every output file.
python3 - "$out" "$python_payments" "$rust_payments" "$scenario" "$rounds" "$simulate" <<'EOF'
import csv, json, math, resource, subprocess, sys

out, scenario, rounds = sys.argv[1], sys.argv[4], int(sys.argv[5])
python_runs, rust_runs = [], []
for _ in range(rounds):
    reference = subprocess.run(["python3", "benches/timeline_reference.py", scenario, sys.argv[2], "7"],
                               check=True, capture_output=True, text=True)
    python_runs.append(json.loads(reference.stdout))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.argv[6], "--config", scenario, "--payments", sys.argv[3],
                    "--threads", "1", "--quiet", "--out", f"{out}/rust"], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    rust_runs.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
python = python_runs[0]
python_seconds = min(run["seconds"] for run in python_runs)
rust_seconds = min(rust_runs)
rows = {row["strategy"]: row for row in csv.DictReader(open(f"{out}/rust/timeline.csv"))}
rust_payments = int(next(iter(rows.values()))["payments"])
rust_rate = rust_payments / rust_seconds
python_rate = python["payments"] / python_seconds
shown = lambda times: ", ".join(f"{t:.2f}" for t in times)
print(f"simulate (1 thread): {rust_payments:,} payments, CPU seconds per round {shown(rust_runs)} "
      f"(process start-up and files included); fastest: {rust_rate:,.0f} payments/s")
print(f"Python reference:    {python['payments']:,} payments, CPU seconds per round "
      f"{shown(run['seconds'] for run in python_runs)}; fastest: {python_rate:,.0f} payments/s")
print(f"ratio of the fastest rounds: {rust_rate / python_rate:.0f}x (each payment under all three strategies)")

worst = 0.0
print(f"{'strategy':18} {'metric':22} {'simulate':>10} {'Python':>10} {'z':>6}")
for strategy, theirs in python["strategies"].items():
    ours = rows[strategy]
    n_ours, n_theirs = rust_payments, python["payments"]
    # Double-charge rate: binomial standard errors.
    a = int(ours["double_charged_payments"]) / n_ours
    b = theirs["double_charged_payments"] / n_theirs
    pooled = (a * n_ours + b * n_theirs) / (n_ours + n_theirs)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n_ours + 1 / n_theirs))
    z = (a - b) / se if se > 0 else 0.0
    worst = max(worst, abs(z))
    print(f"{strategy:18} {'double_charge_rate':22} {a:10.5f} {b:10.5f} {z:6.2f}")
    # Replays per payment: the reference's per-payment variance for both.
    a = int(ours["replays"]) / n_ours
    b = theirs["replays"] / n_theirs
    variance = theirs["replays_squared"] / n_theirs - b * b
    se = math.sqrt(variance * (1 / n_ours + 1 / n_theirs))
    z = (a - b) / se if se > 0 else 0.0
    worst = max(worst, abs(z))
    print(f"{strategy:18} {'replays_per_payment':22} {a:10.5f} {b:10.5f} {z:6.2f}")
verdict = "agree" if worst < 3 else "DISAGREE"
print(f"largest |z| = {worst:.2f}: the rates {verdict} within 3 standard errors")
sys.exit(0 if worst < 3 else 1)
EOF
