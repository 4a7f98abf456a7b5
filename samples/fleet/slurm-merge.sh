#!/bin/bash
# The step after a sharded sweep: merge the per-task files, then compare and diagnose the whole.
# Run it after the array finishes, e.g. as a dependent job:
#
#   jobid=$(sbatch --parsable samples/fleet/slurm-sweep.sbatch -n 2 -L ctx=512,4096 -- llama-completion ...)
#   sbatch --dependency=afterany:$jobid --wrap "samples/fleet/slurm-merge.sh $jobid"
#
# merge exits 1 when a task's plan items are missing (it names the --shard I/N to rerun).
set -euo pipefail
SWEEP_ID=${1:?usage: slurm-merge.sh SWEEP_ID (the array job id)}
RESULTS=${PHASEWRAP_RESULTS:-$PWD/results}
PW=${PHASEWRAP:-phasewrap}
$PW merge "$RESULTS"/"$SWEEP_ID"-*.jsonl -o "$RESULTS/$SWEEP_ID.jsonl"
$PW diagnose --by host "$RESULTS/$SWEEP_ID.jsonl"
$PW report --by host "$RESULTS/$SWEEP_ID.jsonl" -o "$RESULTS/$SWEEP_ID.html"
