#!/usr/bin/env bash
# Side-by-side benchmark: the article's numpy script against `simulate`, same sizes, same
# counts. Installs numpy from PyPI into benches/.venv on first use, builds simulate in release
# mode twice (as shipped, which picks the AVX-512 scan where the processor has it, and with the
# `portable-scan` feature, as on a processor without AVX-512), then prints a Markdown table
# (docs/performance.md). Needs /usr/bin/time (GNU time) for each command's own peak
# memory.
#
#   benches/compare.sh                  # sizes 1e6,1e7,1e8,1e9 (numpy up to 1e8)
#   benches/compare.sh --sizes 1e7      # any flags of benches/compare.py
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
if [[ ! -x benches/.venv/bin/python ]]; then
  python3 -m venv benches/.venv
  benches/.venv/bin/pip install --quiet numpy
fi
# The feature changes only this crate, so both builds share the dependencies in target/release.
cargo build --release --locked --quiet --features portable-scan
cp target/release/simulate target/release/simulate-portable-scan
cargo build --release --locked --quiet
exec benches/.venv/bin/python benches/compare.py \
  --python benches/.venv/bin/python --simulate target/release/simulate \
  --simulate-portable target/release/simulate-portable-scan "$@"
