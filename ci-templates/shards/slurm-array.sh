#!/bin/bash
# Grade a class on a Slurm cluster: one array task per shard, then one job that
# merges them.  The one command, from the folder that holds the submissions:
#
#     sbatch --array=1-8 ci-templates/shards/slurm-array.sh submissions
#
# (8 shards; set SHARDS below to the same number).  Each task grades the share of
# the submissions whose id falls in its shard, with one seed for all of them, into
# out/shard-K; the merge job waits for every task and writes the gradebook, the
# summary, the similarity pass and the class page into out/class.  Rerunning the same
# command regrades only what changed: every shard keeps its own cache.
#
# COURSE: install the grader where the nodes find it (a virtual environment on the
# shared file system: python3 -m venv /shared/embed-grader && /shared/embed-grader/
# bin/pip install embed_grader-*.whl) and set EMBED_GRADER below; choose a SEED once
# per assignment and keep it, so that every shard and every rerun grades alike.
#SBATCH --job-name=embed-grade
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=01:00:00
#SBATCH --output=out/slurm-%A_%a.log
set -euo pipefail

SUBMISSIONS="${1:?usage: sbatch --array=1-N slurm-array.sh SUBMISSIONS_DIR}"
EMBED_GRADER="${EMBED_GRADER:-/shared/embed-grader/bin/embed-grader}"
SEED="${SEED:-2026}"
SHARDS="${SLURM_ARRAY_TASK_COUNT:-8}"
K="${SLURM_ARRAY_TASK_ID:?submit with sbatch --array=1-N}"

mkdir -p out
"$EMBED_GRADER" batch "$SUBMISSIONS" --seed "$SEED" --shard "$K/$SHARDS" \
    --jobs "${SLURM_CPUS_PER_TASK:-2}" --out "out/shard-$K" || true

# The last task to start submits the merge, held until every task of the array ends.
if [ "$K" = "$SHARDS" ]; then
    shards=()
    for k in $(seq 1 "$SHARDS"); do shards+=("out/shard-$k"); done
    sbatch --dependency="afterany:${SLURM_ARRAY_JOB_ID}" --job-name=embed-merge \
        --output=out/slurm-merge-%j.log \
        --wrap="$EMBED_GRADER merge ${shards[*]} --out out/class"
fi
