#!/usr/bin/env bash
# Queues the shards of a run as a Slurm job array, then its merge once every shard succeeded:
#   docs/sharding/slurm-submit.sh configs/brooker-collapse.toml 4 output/brooker-collapse
set -euo pipefail
CONFIG=${1:?config file}
SHARDS=${2:-4}
OUT=${3:-output/$(basename "$CONFIG" .toml)}
here=$(dirname "$0")
mkdir -p shards
job=$(CONFIG=$CONFIG SHARDS=$SHARDS sbatch --parsable --export=ALL \
  --array="0-$((SHARDS - 1))" "$here/slurm-shards.sbatch")
job=${job%%;*}
sbatch --dependency="afterok:$job" --job-name=simulate-merge \
  --output="shards/$job/merge.txt" \
  --wrap="simulate merge shards/$job/[0-9]* --out '$OUT'"
echo "queued shards $job (0-$((SHARDS - 1))) and their merge into $OUT"
