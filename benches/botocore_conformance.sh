#!/usr/bin/env bash
# Conformance of the `aws_standard` and `aws_standard_2_1` retry clients
# (src/model/load/client.rs) with botocore's own retry code: installs botocore from PyPI in a
# fresh venv, runs benches/botocore_conformance.py on seeded event sequences in both of
# botocore's modes (its classic standard mode, and retry behaviour 2.1 with
# AWS_NEW_RETRIES_2026=true), and compares the decisions with the committed
# benches/botocore_retry_reference.csv, which the unit test
# `model::load::client::tests::retry_clients_decide_as_botocore_does` replays through our
# client state (every retry or give-up, every delay and the quota's tokens after each event).
#
#   benches/botocore_conformance.sh [--save]
#
# --save writes the CSV instead of comparing. botocore 1.43.127 is pinned: it has both modes
# (1.44 made 2.1 the default). Nothing of botocore is copied into this project.
set -euo pipefail
cd "$(dirname "$0")/.."
version=1.43.127
reference=benches/botocore_retry_reference.csv
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet "botocore==$version"
out=$(mktemp)
echo "mode,step,payment,event,attempt,u,decision,delay_ms,tokens" > "$out"
AWS_NEW_RETRIES_2026=false "$venv/bin/python" benches/botocore_conformance.py aws_standard 7 2000 >> "$out"
AWS_NEW_RETRIES_2026=true "$venv/bin/python" benches/botocore_conformance.py aws_standard_2_1 7 2000 >> "$out"
if [[ ${1:-} == --save ]]; then
  mv "$out" "$reference"
  chmod 644 "$reference"
  echo "wrote $reference (botocore $version)"
elif cmp -s "$out" "$reference"; then
  echo "botocore $version decides as $reference says: $(($(wc -l < "$reference") - 1)) events"
else
  diff "$reference" "$out" | head -20
  echo "botocore $version no longer decides as $reference says"
  exit 1
fi
