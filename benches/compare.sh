#!/usr/bin/env bash
# Side-by-side benchmark: the article's numpy script against `simulate`, same sizes, same
# counts. Installs numpy from PyPI into benches/.venv on first use, builds simulate in release
# mode, then prints a Markdown table (README, section Performance).
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
cargo build --release --locked --quiet
exec benches/.venv/bin/python benches/compare.py \
  --python benches/.venv/bin/python --simulate target/release/simulate "$@"
