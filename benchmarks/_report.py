"""Shared by the benchmark scripts: the machine description and writing one section of
BENCHMARKS.md (replacing that section only, keeping every other one)."""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path


def machine_info() -> dict:
    import numba
    import numpy as np
    import scipy
    import sklearn

    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")),
                       cpu)
    except OSError:
        pass
    try:
        nproc = len(os.sched_getaffinity(0))
    except AttributeError:
        nproc = os.cpu_count()
    try:
        load = " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        load = "n/a"
    return {"nproc": nproc, "cpu": cpu, "python": platform.python_version(),
            "numpy": np.__version__, "scipy": scipy.__version__, "sklearn": sklearn.__version__,
            "numba": numba.__version__, "platform": platform.platform(), "load": load}


def machine_description() -> str:
    m = machine_info()
    return (f"Machine: {m['nproc']} cores, {m['cpu']}, {m['platform']}; Python {m['python']}, "
            f"numpy {m['numpy']}, scipy {m['scipy']}, scikit-learn {m['sklearn']}, "
            f"numba {m['numba']}; load average at start {m['load']}.")


def write_section(path, heading: str, body: str) -> None:
    """Put ``## heading`` + body into the markdown file ``path``: replace the lines from that
    heading up to the next '## ' heading, or append the section if it is not there."""
    path = Path(path)
    title = f"## {heading}"
    section = title + "\n\n" + body.rstrip("\n") + "\n"
    lines = path.read_text().splitlines(keepends=True) if path.exists() else ["# Benchmarks\n", "\n"]
    start = next((i for i, ln in enumerate(lines) if ln.rstrip("\r\n") == title), None)
    if start is None:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        if lines and lines[-1].strip():
            lines.append("\n")
        new = lines + [section]
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
                   len(lines))
        tail = lines[end:]
        new = lines[:start] + [section] + (["\n"] if tail else []) + tail
    path.write_text("".join(new))


def publish(out, heading: str, script: str, argv, text: str) -> None:
    """Print ``text`` and, when ``out`` is given, write it into that markdown file as section
    ``heading``, after the command line (``python benchmarks/<script> <argv>``, argv None:
    this process's arguments) and the machine description."""
    print(text)
    if out:
        args = " ".join(argv if argv is not None else sys.argv[1:])
        write_section(out, heading, f"Command: `python benchmarks/{script} {args}`\n\n"
                                    f"{machine_description()}\n\n{text}\n")


def data_root(data=None):
    """The benchmark data folder (``--data``, else $SVMBOUND_DATA, else ../shared/data), or None
    after saying on stderr that it is missing (the caller then exits with status 2)."""
    import sys

    from svmbound.datasets import data_dir

    try:
        return data_dir(data)
    except FileNotFoundError as exc:
        print(f"benchmark data not found: {exc}", file=sys.stderr)
        return None


def git_commit() -> str:
    """``git rev-parse --short HEAD`` of the repository holding this folder, or 'unknown'."""
    import subprocess

    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True, cwd=Path(__file__).resolve().parent
                              ).stdout.strip() or "unknown"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def gmean(values) -> float:
    """Geometric mean of the positive finite values (nan when there are none)."""
    import math

    v = [x for x in values if x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")
