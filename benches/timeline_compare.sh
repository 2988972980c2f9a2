#!/usr/bin/env bash
# The timeline model's speed against a plain pure-Python event simulation of the same
# semantics (benches/timeline_reference.py), one thread each, on configs/mobile-network.toml:
# payments per second of each, the ratio, and a check that their rates agree statistically
# (double-charge and replay rates per strategy within 3 standard errors; the two use different
# random streams, so they agree in distribution, not payment by payment).
#
# Usage: benches/timeline_compare.sh [RUST_PAYMENTS] [PYTHON_PAYMENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
rust_payments=${1:-2000000}
python_payments=${2:-50000}
scenario=configs/mobile-network.toml
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cargo build --release --quiet
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
  "avx512f: $(grep -qw avx512f /proc/cpuinfo && echo yes || echo no)"

python3 benches/timeline_reference.py "$scenario" "$python_payments" 7 > "$out/python.json"

# CPU time (user + system) of each, not wall time: on a shared machine wall time measures the
# neighbours too.
python3 - "$out" "$python_payments" "$rust_payments" "$scenario" <<'EOF'
import csv, json, math, resource, subprocess, sys

out, scenario = sys.argv[1], sys.argv[4]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
subprocess.run(["./target/release/simulate", "--config", scenario, "--payments", sys.argv[3],
                "--threads", "1", "--quiet", "--out", f"{out}/rust"], check=True)
after = resource.getrusage(resource.RUSAGE_CHILDREN)
rust_seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
rows = {row["strategy"]: row for row in csv.DictReader(open(f"{out}/rust/timeline.csv"))}
python = json.load(open(f"{out}/python.json"))
rust_payments = int(next(iter(rows.values()))["payments"])
rust_rate = rust_payments / rust_seconds
python_rate = python["payments"] / python["seconds"]
print(f"simulate (1 thread): {rust_payments:,} payments in {rust_seconds:.2f} s of CPU "
      f"(process start-up and files included): {rust_rate:,.0f} payments/s")
print(f"Python reference:    {python['payments']:,} payments in {python['seconds']:.2f} s of CPU: "
      f"{python_rate:,.0f} payments/s")
print(f"ratio: {rust_rate / python_rate:.0f}x (each payment under all three strategies)")

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
