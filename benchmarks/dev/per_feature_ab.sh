#!/usr/bin/env bash
# Issue 33's A/B of the default's per-feature stage: the default (l2, l1) against itself without
# it (l2-iso, l1-iso) and GridSearchCV, on every IDA split, the scikit-learn tasks, the aside
# suite and the few-relevant-feature suite, in SHARDS processes of 2 cores each (taskset), so
# that every time is a 2-core time. Per-case JSON lines and the merged report go to OUT.
#
#   SVMBOUND_DATA=../shared/data OUT=/tmp/ab SHARDS=8 bash benchmarks/dev/per_feature_ab.sh
#
# SHARDS × 2 cores must exist (8 on the 16-core machine; 1 on a 2-core machine).
set -u
OUT=${OUT:-benchmarks/results/per_feature_ab}
SHARDS=${SHARDS:-8}
SUITES=${SUITES:-"ida sklearn aside relevant"}
METHODS=${METHODS:-"grid l2 l1 l2-iso l1-iso"}
CONFIG=${CONFIG:-}    # StrategyConfig fields of ours, e.g. "ard_max_fev=8"
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")/../.." && pwd)
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 MKL_NUM_THREADS=2
py=${PYTHON:-python3}
for i in $(seq 0 $((SHARDS - 1))); do
    taskset -c $((2 * i)),$((2 * i + 1)) "$py" "$here/benchmarks/vs_peers.py" --suites $SUITES \
        --methods $METHODS --jobs 2 --shard "$i/$SHARDS" --json-out "$OUT/shard$i.jsonl" \
        ${CONFIG:+--config $CONFIG} \
        > "$OUT/shard$i.log" 2>&1 &
done
wait
"$py" "$here/benchmarks/vs_peers.py" --merge "$OUT"/shard*.jsonl --methods $METHODS \
    --out "$OUT/report.md" > /dev/null
(nproc --all; lscpu | grep 'Model name'; "$py" -c 'import numpy, sklearn, numba; print(numpy.__version__, sklearn.__version__, numba.__version__)'; git -C "$here" log -1 --format=%h 2>/dev/null) > "$OUT/machine.txt" 2>&1
