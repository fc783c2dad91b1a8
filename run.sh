#!/usr/bin/env bash
# One entry point that sets itself up: creates .venv and installs svmbound on first use.
#   bash run.sh demo    tune an SVM on scikit-learn's bundled breast-cancer data
#   bash run.sh test    run the whole test suite
#   bash run.sh bench   the quick benchmark suite against the peers, 2 jobs (BENCHMARKS.md)
#   bash run.sh bench-svr  the quick regression benchmark (BoundSVR against the peers), 2 jobs
#   bash run.sh <args>  any `svmbound` command, e.g. bash run.sh tune data.libsvm --json
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
stamp="$venv/.svmbound-installed"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if [ ! -f "$stamp" ] || [ "$here/pyproject.toml" -nt "$stamp" ]; then
    "$venv/bin/python" -m pip install -q --upgrade pip >&2
    "$venv/bin/python" -m pip install -q -e "$here[test]" >&2
    touch "$stamp"
fi
cmd="${1:-demo}"
case "$cmd" in
    test) shift; cd "$here" && exec "$venv/bin/python" -m pytest -q "$@" ;;
    demo) shift; exec "$venv/bin/svmbound" demo "$@" ;;
    bench) shift; cd "$here" && exec "$venv/bin/python" benchmarks/vs_peers.py --quick --jobs 2 \
        --methods grid random l2 l1 "$@" ;;
    bench-svr) shift; cd "$here" && exec "$venv/bin/python" benchmarks/regression.py --quick \
        --jobs 2 --methods grid random l2 l1 "$@" ;;
    *) exec "$venv/bin/svmbound" "$@" ;;
esac
