#!/usr/bin/env bash
# Records the speed measurements of docs/performance.md as raw logs in one folder; `cargo
# xtask docs` then makes the performance tables from them, so no figure is copied by hand.
#
#   benches/speed_record.sh OUT_FOLDER CLONE_OF_AWS_SIMULATOR CLONE_OF_BROOKER_SIMULATIONS [SETS]
#
# CLONE_OF_AWS_SIMULATOR is a clone of aws-samples/aws-arch-backoff-simulator,
# CLONE_OF_BROOKER_SIMULATIONS one of mbrooker/simulator_example (nothing of either is copied
# into this project). It writes, in OUT_FOLDER:
#   machine.txt              the commit, the processor (model, family, whether it has
#                            AVX-512), the cores, rustc and Python;
#   load_bench.log           SETS runs of `cargo bench --bench load` (the load model's events
#                            per second per thread), each after a line `run HH:MM:SS UTC, load
#                            average A B C`;
#   aws_backoff_speed.log    SETS runs of the timing of benches/aws_backoff_compare.sh (the
#                            AWS original against `simulate`, one thread and all cores), each
#                            after a line `set HH:MM:SS UTC`;
#   load_speed_compare.log   one run of benches/load_speed_compare.sh with its defaults
#                            (Brooker's two simulations against `simulate`);
#   instructions.log         the instruction counts of benches/instructions_record.sh
#                            (callgrind; needs valgrind).
# SETS defaults to 5. The whole takes about SETS × 3 + 4 minutes on a 2-core machine; run it
# on a machine with nothing else running, as the logs say nothing about other load but the
# load average.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -lt 3 ]]; then
  echo "usage: $0 OUT_FOLDER CLONE_OF_AWS_SIMULATOR CLONE_OF_BROOKER_SIMULATIONS [SETS]" >&2
  exit 2
fi
out=$1
aws=$2
brooker=$3
sets=${4:-5}
mkdir -p "$out"

stamp() {
  echo "$1 $(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

{
  echo "date: $(date -u +%Y-%m-%d)"
  echo "commit: $(git rev-parse HEAD)$(git diff --quiet HEAD -- src Cargo.toml Cargo.lock || echo ' (with uncommitted changes)')"
  echo "processor: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
    "family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
    "model $(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
    "$(grep -q -w avx512f /proc/cpuinfo && echo "with AVX-512" || echo "without AVX-512")"
  echo "cores: $(nproc)"
  echo "rustc: $(rustc --version)"
  echo "python: $(${PYTHON:-python3} --version 2>&1)"
} > "$out/machine.txt"

cargo bench --locked --bench load --no-run --quiet 2>/dev/null
: > "$out/load_bench.log"
: > "$out/aws_backoff_speed.log"
for ((set = 1; set <= sets; set++)); do
  stamp run >> "$out/load_bench.log"
  cargo bench --locked --bench load 2>/dev/null | grep events >> "$out/load_bench.log"
  stamp set >> "$out/aws_backoff_speed.log"
  SKIP_STATISTICS=1 benches/aws_backoff_compare.sh "$aws" | sed -n '/^CPU:/,$p' >> "$out/aws_backoff_speed.log"
done
benches/load_speed_compare.sh "$brooker" > "$out/load_speed_compare.log"
benches/instructions_record.sh "$out" "$aws" > /dev/null
echo "wrote $out/machine.txt, load_bench.log, aws_backoff_speed.log, load_speed_compare.log, instructions.log"
