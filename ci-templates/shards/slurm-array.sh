#!/bin/bash
# Grade a class on a Slurm cluster: one array task per shard, then one job that
# merges them.  The one command, from the folder that holds the submissions (in its
# folder submissions/) and this file (in ci-templates/shards/):
#
#     sbatch --array=1-8 ci-templates/shards/slurm-array.sh submissions
#
# The array's size is the number of shards (8 here): nothing else to set.  Each task
# grades the share of the submissions whose id falls in its shard, with one seed for
# all of them, into out/shard-K; the task of the last shard then submits the merge,
# a job held until every task of the array has ended, which writes the gradebook, the
# summary, the similarity pass and the class page into out/class.  The logs are
# embed-grade-JOB_K.log and embed-merge-JOB.log in the same folder (Slurm opens a log
# before the job starts, so a log cannot go into a folder that the job makes).
# Rerunning the same command regrades only what changed: every shard keeps its own
# cache.
#
# COURSE: install the grader where the nodes find it (a virtual environment on the
# shared file system: python3 -m venv /shared/embed-grader && /shared/embed-grader/
# bin/pip install embed_grader-*.whl) and set EMBED_GRADER below; choose a SEED once
# per assignment and keep it, so that every shard and every rerun grades alike.  Both
# can also be given on the command line, since sbatch passes the environment on:
# EMBED_GRADER=/path/bin/embed-grader SEED=2027 sbatch --array=1-8 ...
#SBATCH --job-name=embed-grade
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=01:00:00
#SBATCH --output=embed-grade-%A_%a.log
set -euo pipefail

SUBMISSIONS="${1:?usage: sbatch --array=1-N slurm-array.sh SUBMISSIONS_DIR}"
EMBED_GRADER="${EMBED_GRADER:-/shared/embed-grader/bin/embed-grader}"
SEED="${SEED:-2026}"
K="${SLURM_ARRAY_TASK_ID:?submit with sbatch --array=1-N}"
SHARDS="${SLURM_ARRAY_TASK_COUNT:?submit with sbatch --array=1-N}"
if [ "${SLURM_ARRAY_TASK_MIN:-}" != 1 ] || [ "${SLURM_ARRAY_TASK_MAX:-}" != "$SHARDS" ]; then
    echo "submit with sbatch --array=1-N: the tasks must be numbered 1 to N" >&2
    exit 2
fi

mkdir -p out
"$EMBED_GRADER" batch "$SUBMISSIONS" --seed "$SEED" --shard "$K/$SHARDS" \
    --jobs "${SLURM_CPUS_PER_TASK:-2}" --out "out/shard-$K" || true

# The task of the last shard submits the merge, whenever it runs: the merge waits for
# every task of the array (afterany: a task that failed leaves its shard missing,
# which the merge then names).
if [ "$K" = "$SHARDS" ]; then
    merge=("$EMBED_GRADER" merge)
    for k in $(seq 1 "$SHARDS"); do merge+=("out/shard-$k"); done
    merge+=(--out out/class)
    sbatch --dependency="afterany:${SLURM_ARRAY_JOB_ID}" --job-name=embed-merge \
        --output=embed-merge-%j.log --wrap="$(printf '%q ' "${merge[@]}")"
fi
