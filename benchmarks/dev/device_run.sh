#!/usr/bin/env bash
# Issue 32's all-cores run on the lent 16-core machine, in one device call (a session has 15
# minutes of device time, the machine's start included; see /work/.library/device/README.md).
#
# The device copies the repository only: ../shared/data and the benchmark-only peers
# (scikit-learn-intelex, optuna: no network there) must travel in an ignored folder, .device/.
#
#   bash benchmarks/dev/device_run.sh stage      # here: fill .device/ (about 53 MB), once
#
# then the device tool's run, with carry [".device"] and timeout_s 590 (the copy has no .git:
# name the commit, `git rev-parse --short HEAD` here, and commit before staging):
#
#   COMMIT=<hash> bash benchmarks/dev/device_run.sh run
#
# which installs the carried wheels, runs benchmarks/all_cores.sh with STAGES (default "one-svm
# large-ijcnn1 quick large-a9a": not measured there since the block solver and the per-feature
# stage; large-a9a last, as the last stage gets what is left: its two stock SVC fits took 41 s
# each there) and BUDGET_S (default 480 s: the install and the archive fit in one 590 s call), and
# leaves the tables as one archive, $OUT/all_cores.tgz (a call returns at most 8 files). If the
# machine is still warm and time is left: STAGES="pairs one-svm-dense" BUDGET_S=200 in a second
# call (the wheels are installed again: a call may find a fresh machine). Unpack the archives
# into benchmarks/results/all_cores_16/ and put the tables into BENCHMARKS.md, "All cores".
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dev="$here/.device"
case "${1:-}" in
stage)
    src="${SVMBOUND_DATA:-$here/../shared/data}"
    [ -d "$src/ida" ] || { echo "no benchmark data at $src (set SVMBOUND_DATA)" >&2; exit 2; }
    grep -qx '/.device/' "$here/.git/info/exclude" 2>/dev/null \
        || { mkdir -p "$here/.git/info"; echo '/.device/' >> "$here/.git/info/exclude"; }
    rm -rf "$dev"; mkdir -p "$dev/data/libsvm/dense" "$dev/wheels"
    # the quick suite's IDA splits 1-2 and LIBSVM sets; ijcnn1 and a9a whole
    for d in "$src"/ida/*/; do
        s=$(basename "$d"); mkdir -p "$dev/data/ida/$s"
        cp "$d"/*_[12].asc* "$dev/data/ida/$s/"
    done
    for f in australian.bz2 heart_scale ijcnn1.bz2 ijcnn1.t.bz2 a9a.bz2 a9a.t.bz2; do
        cp "$src/libsvm/$f" "$dev/data/libsvm/"
    done
    cp "$src/libsvm/dense/fourclass_scale.dense.txt.xz" "$dev/data/libsvm/dense/"
    # wheels for the device's Python (3.12, x86-64 Linux); no dependency resolution there
    "${PYTHON:-python3}" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
        --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux_2_24_x86_64 --platform manylinux_2_28_x86_64 -d "$dev/wheels" \
        scikit-learn-intelex daal tbb optuna alembic sqlalchemy greenlet mako colorlog pyyaml \
        tqdm typing_extensions || exit 1
    du -sh "$dev"; echo "now: the device tool's run, carry [\".device\"]:" \
        "COMMIT=$(git -C "$here" rev-parse --short HEAD) bash benchmarks/dev/device_run.sh run" ;;
run)
    [ -d "$dev/data" ] || { echo "no .device/ here: stage it and carry it" >&2; exit 2; }
    out="${OUT:-/tmp/out}"; mkdir -p "$out"
    # (PIP_BREAK_SYSTEM_PACKAGES: a distribution Python marked externally managed takes them too)
    PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q --no-index --no-deps "$dev"/wheels/*.whl \
        2>&1 | tail -3
    res="$(mktemp -d)/all_cores_16"
    SVMBOUND_DATA="$dev/data" PYTHON=python3 BUDGET_S="${BUDGET_S:-480}" \
        STAGES="${STAGES:-one-svm large-ijcnn1 quick large-a9a}" \
        bash "$here/benchmarks/all_cores.sh" "$res"
    name="all_cores${STAGES:+-$(tr -c "a-z0-9\n" - <<< "$STAGES")}"
    tar czf "$out/$name.tgz" -C "$(dirname "$res")" all_cores_16
    echo "tables: $out/$name.tgz" ;;
*)
    echo "usage: bash benchmarks/dev/device_run.sh stage|run" >&2; exit 2 ;;
esac
