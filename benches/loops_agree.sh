#!/usr/bin/env bash
# The two event loops against each other at a large size (issue #30): the comparison of
# tests/loops_agree.rs (every shipped file both loops model, at unlimited capacity, Welch's z
# per metric with the Bonferroni limit of the test's header) with PAYMENTS payments per run
# instead of the test's 1,500, so that a small systematic difference between the loops, which
# the test's size cannot see, moves |z| past the limit.
#
#   benches/loops_agree.sh [PAYMENTS]    # default 50000
set -euo pipefail
cd "$(dirname "$0")/.."
payments=${1:-50000}
LOOPS_AGREE_PAYMENTS=$payments cargo test --locked --release --quiet --test integration \
  loops_agree -- --nocapture
echo "the two loops agree at $payments payments per run and 12 runs a side"
