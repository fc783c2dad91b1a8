"""Entry point of the ``svmbound`` command: says at once that a tuning is starting, then loads
the command line (importing scikit-learn, SciPy and numba takes about 1.5 s, longer than the
second within which a long run's first progress line is due, issue 15).

The line goes to stderr only where the progress bar would be shown (``tune`` on a terminal
without --quiet, or with --progress) and before the heavy imports."""

from __future__ import annotations

import sys


def _progress_wanted(argv) -> bool:
    if not argv or argv[0] != "tune" or "--quiet" in argv:
        return False
    return "--progress" in argv or sys.stderr.isatty()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if _progress_wanted(argv):
        print("[svmbound] starting: loading numba, SciPy and scikit-learn ...", file=sys.stderr,
              flush=True)
    from .cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
