#!/usr/bin/env bash
# All cores, measured (issue 32): one big SVM (ours on one and on every core, sklearnex's SVC;
# then every trainer pinned to two cores, stock SVC with them), the large-data benchmark (ijcnn1
# whole, a9a whole) and the quick peer suite with every method on every core, each table
# written into one folder as it finishes.
#
#   bash benchmarks/all_cores.sh [OUT_DIR]          (default benchmarks/results/all_cores)
#
# On the lent device machine, whose copy of the repository has no data and no peers:
# benchmarks/dev/device_run.sh (stage here, then one device call).
#
# STAGES (default "one-svm one-svm-2 large-ijcnn1 large-a9a quick") picks and orders the stages;
# "pairs" (not in the default) times one big SVM by blocks (the library as it is, solvers/_block.py)
# against the pair SMO on every core, and a 5,000-row one (about 2 minutes); "one-svm-dense"
# (not in the default) one big SVM on dense200 whole (50,000 x 200 dense features: rows by BLAS
# products), ours and sklearnex's on every core with a 4,096 MB cache, what BoundSVC's
# cache_size="auto" gives its final training (at 2,000 MB its support vectors outgrow our cache;
# sklearnex's time hardly moves with it) (about 1 minute);
# the quick suite's cases are small (no kernel row is computed in pieces), so its times do not
# move with the solver's threads.
# Environment: PYTHON (default: .venv/bin/python if present, else python3), SVMBOUND_DATA (the
# data folder, default ../shared/data), JOBS (default: every core), BUDGET_S (seconds for the
# whole run, default 450: 8 minutes less the numba compile), REPEAT_UNDER (default 0.5 s: each
# fit repeated until this many seconds, median reported; 20-50 ms fits timed once are noise).
# Peers that are not installed (optuna, scikit-learn-intelex: `pip install -e .[bench]`) are
# skipped with a note in the table. Every stage runs under `timeout`, so a slow machine still
# gets the tables of the stages that finished.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$here/benchmarks/results/all_cores}"
mkdir -p "$out"
if [ -z "${PYTHON:-}" ]; then
    if [ -x "$here/.venv/bin/python" ]; then PYTHON="$here/.venv/bin/python"; else PYTHON=python3; fi
fi
jobs="${JOBS:-$(nproc)}"
budget="${BUDGET_S:-450}"
repeat="${REPEAT_UNDER:-0.5}"
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
start=$(date +%s)
left() { echo $(( budget - ($(date +%s) - start) )); }
commit="${COMMIT:-$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
{
    echo "commit $commit, $(date -u +%FT%TZ), jobs $jobs, budget ${budget}s"
    "$PYTHON" -c 'import sys; sys.path.insert(0, "benchmarks"); from _report import machine_description as m; print(m())'
    "$PYTHON" -c 'import numpy, scipy.linalg, threadpoolctl, json; print(json.dumps(threadpoolctl.threadpool_info()))' 2>/dev/null
    "$PYTHON" -c 'import numba; from svmbound.solvers.qp import threadsafe_numba as t; ok = t(); print("numba threads", numba.config.NUMBA_NUM_THREADS, "layer", numba.threading_layer(), "thread-safe", ok)' 2>&1 | tail -1
} > "$out/machine.txt"
cat "$out/machine.txt"

stage() {   # stage NAME SECONDS CMD...: run CMD under timeout, log to OUT/NAME.log
    local name=$1 secs=$2; shift 2
    if [ "$secs" -lt 30 ]; then echo "== $name: skipped, ${secs}s left" | tee -a "$out/skipped.txt"; return; fi
    echo "== $name (at most ${secs}s)"
    local t0=$(date +%s)
    timeout --signal=INT --kill-after=10 "$secs" "$@" 2>&1 | tee "$out/$name.log"
    echo "== $name: exit ${PIPESTATUS[0]} after $(( $(date +%s) - t0 ))s" | tee -a "$out/stages.txt"
}

cd "$here"
stages="${STAGES:-one-svm one-svm-2 large-ijcnn1 large-a9a quick}"
run_quick() {
rm -f "$out/quick.jsonl"
stage quick "$1" "$PYTHON" benchmarks/vs_peers.py --quick --jobs "$jobs" \
    --methods grid random optuna grid-sklearnex l2 l1 --repeat-under "$repeat" \
    --json-out "$out/quick.jsonl" --out "$out/quick.md" \
    --heading "svmbound vs peers, quick mode, $jobs jobs"
# the report of whatever cases finished, when the stage was cut short
if [ ! -s "$out/quick.md" ] && [ -s "$out/quick.jsonl" ]; then
    "$PYTHON" benchmarks/vs_peers.py --merge "$out/quick.jsonl" \
        --methods grid random optuna grid-sklearnex l2 l1 --out "$out/quick.md" \
        --heading "svmbound vs peers, quick mode, $jobs jobs (cut short)" > /dev/null
fi
}
n_stages=$(wc -w <<< "$stages"); k=0
for s in $stages; do
    k=$((k + 1)); share=$(( $(left) / (n_stages - k + 1) ))   # an equal part of what is left
    [ "$k" -eq "$n_stages" ] && share=$(left)
    case $s in
    one-svm) stage one-svm "$share" "$PYTHON" benchmarks/one_svm.py --cases ijcnn1 a9a \
        --repeats 1 --threads 1 "$jobs" --trainers ours sklearnex --out "$out/one-svm.md" ;;
    one-svm-2) if command -v taskset > /dev/null && [ "$(nproc)" -gt 2 ]; then
        # stock SVC (one thread anyway) on ijcnn1 only: on a9a its fit and predict take 60 s
        stage one-svm-2cores "$share" env NUMBA_NUM_THREADS=2 OMP_NUM_THREADS=2 taskset -c 0,1 \
            "$PYTHON" benchmarks/one_svm.py --cases ijcnn1 --repeats 1 --threads 2 \
            --out "$out/one-svm-2cores.md"
        stage one-svm-2cores-a9a "$share" env NUMBA_NUM_THREADS=2 OMP_NUM_THREADS=2 \
            taskset -c 0,1 "$PYTHON" benchmarks/one_svm.py --cases a9a --repeats 1 --threads 2 \
            --trainers ours sklearnex --out "$out/one-svm-2cores-a9a.md"
        else echo "== one-svm-2: skipped (no taskset, or 2 cores or fewer)" | tee -a "$out/skipped.txt"; fi ;;
    pairs)
        # the block solver (docs/decisions.md, "block_smo") against the pair SMO on every core,
        # a process a solve, alternated (blocks_vs_pairs.py: its "pairs" child sets
        # qp.uses_blocks to False); and a 5,000-row solve, which runs by blocks from
        # BLOCK_MIN_ROWS = 4,096 (on 2 cores two threads were 1.0-1.2x one there)
        while read -r c l r; do
            stage "pairs-$c-$l${r:+-$r}" "$(( share / 4 ))" "$PYTHON" \
                benchmarks/dev/blocks_vs_pairs.py --case "$c" --loss "$l" ${r:+--rows "$r"} \
                --threads "$jobs" --repeats 1 --cache-size auto
        done <<< $'ijcnn1 l1\nijcnn1 l2\na9a l1\nijcnn1 l2 5000' ;;
    one-svm-dense) stage one-svm-dense200 "$share" "$PYTHON" benchmarks/one_svm.py \
        --cases dense200 --repeats 1 --threads "$jobs" --trainers ours sklearnex \
        --cache-size 4096 --out "$out/one-svm-dense200.md" ;;
    large-ijcnn1) stage large-ijcnn1 "$share" "$PYTHON" benchmarks/large_data.py --cases ijcnn1 \
        --methods l1 l2 --jobs "$jobs" --out "$out/large-ijcnn1.md" ;;
    large-a9a) stage large-a9a "$share" "$PYTHON" benchmarks/large_data.py --cases a9a \
        --methods l1 l2 --jobs "$jobs" --out "$out/large-a9a.md" ;;
    quick) run_quick "$share" ;;
    *) echo "unknown stage $s" >&2 ;;
    esac
done
echo "all stages done in $(( $(date +%s) - start ))s; tables in $out"
