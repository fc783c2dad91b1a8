"""LIBSVM / SVMlight text files: read with scikit-learn's ``load_svmlight_files``, guarded.

``load_libsvm_files(paths, n_features)`` reads a training file and the files to be predicted
together (one column count, one index base for all), plain or compressed (.bz2, .gz, .xz), as
dense float64 or CSR. Around scikit-learn's parser: a chunked reader with a limit per line
(``MAX_LINE_BYTES``) that refuses binary data (a NUL byte) at once; parse errors named by file
and line; a dense result larger than ``dense_limit_bytes`` refused before it is built; columns
past a stray huge index kept free in CSR and warned about with their cost.
"""

from __future__ import annotations

import bz2
import errno
import gzip
import io
import lzma
import os
import warnings
from pathlib import Path

import numpy as np

from .exceptions import DataWarning

__all__ = ["load_libsvm", "load_libsvm_files", "dense_limit_bytes", "MAX_LINE_BYTES",
           "MAX_FEATURE_INDEX"]


#: Largest feature index scikit-learn's LIBSVM parser accepts (it overflows beyond).
MAX_FEATURE_INDEX = 2**31 - 1
#: Upper limit of ``dense_limit_bytes``: whatever the memory, a LIBSVM file is not turned into a
#: dense matrix of more than 16 GiB (a stray index such as ``50000000:1`` in an 80-line file
#: asks for 30 GiB; svmbound's kernels need an n×n matrix long before d×n is that large).
DENSE_LIMIT_MAX_BYTES = 16 * 2**30
#: Longest line the LIBSVM reader accepts, in bytes (issue 29, item 10). Without a limit a file
#: without line ends (``/dev/zero``, a binary file, a damaged download) is read into one Python
#: string until the memory runs out. One line holds one sample, at about 10 to 30 bytes per
#: non-zero ("12345:-0.123456"): 64 MiB is a row of two million or more non-zeros — far wider
#: than any data set svmbound can train on (the largest line in the shared data, reuters.trn,
#: is 9.6 KB; a dense 100,000-feature row is about 2.5 MB), so the limit refuses no real file,
#: while the parser's copies of one such line (the bytes and their split tokens, about 4× the
#: line) stay near a quarter of a GiB. A 1 MB limit would refuse dense rows of more than about
#: 40,000 features, which exist (gene expression, images).
MAX_LINE_BYTES = 64 * 2**20
#: The reader's chunk (at most the line limit, so that a line that lies inside one chunk is
#: within the limit).
_CHUNK_BYTES = 2**20
#: ``load_libsvm_files`` warns when the columns that hold no value cost at least this much
#: (and are the majority): a stray index such as ``134217728:1`` in a 5-feature file.
WIDE_WARN_BYTES = 64 * 2**20

_COMPRESSION = {".bz2": "bzip2", ".gz": "gzip", ".xz": "xz"}


def dense_limit_bytes() -> int:
    """Largest dense float64 feature matrix the LIBSVM loaders build, in bytes: a quarter of the
    physical memory (the rule of the kernel cache), at most ``DENSE_LIMIT_MAX_BYTES``."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 4 * DENSE_LIMIT_MAX_BYTES
    return int(min(DENSE_LIMIT_MAX_BYTES, total // 4))


def _open_binary(path: Path):
    """Open a possibly compressed file for binary reading (by extension)."""
    suffix = path.suffix.lower()
    if suffix == ".bz2":
        return bz2.open(path, "rb")
    if suffix == ".gz":
        return gzip.open(path, "rb")
    if suffix == ".xz":
        return lzma.open(path, "rb")
    return open(path, "rb")


def _read_error(path: Path, exc: BaseException) -> Exception:
    """The error to raise for an OS or decompression failure while reading ``path``: the
    OS errors (permission, a directory…) keep their type with the path in the message; a
    corrupt or truncated compressed file becomes a ValueError that says so."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return type(exc)(exc.errno, exc.strerror, str(path))
    kind = _COMPRESSION.get(path.suffix.lower())
    if isinstance(exc, EOFError):
        return ValueError(f"{path}: the {kind or 'compressed'} data end too early (truncated "
                          f"file?): {exc}")
    if kind is not None:
        return ValueError(f"{path}: cannot decompress as {kind} data (the name ends in "
                          f"{path.suffix}; is the file really {kind}-compressed?): {exc}")
    return ValueError(f"{path}: cannot read: {exc}")


class _LineError(ValueError):
    """A line the reader refuses (too long, binary); the message names the file and line."""


class _Lines:
    """The lines of a (possibly compressed) LIBSVM file, as scikit-learn's parser reads them
    (``for line in f``; it also asks for a ``read`` method), read in binary chunks with a limit
    per line: a line longer than ``limit`` bytes, or a NUL byte (binary data), raises a
    ``_LineError`` naming the file and the line. ``started``/``finished`` tell which of several
    files the parser was reading when it failed.

    Kept instead of handing scikit-learn the open file: its parser reads ``for line in f``,
    which reads a file without line ends (``/dev/zero``) until the memory runs out. It costs
    nothing (2 shared cores, scikit-learn 1.9, best of 3): the parse of ijcnn1.t (91,701 lines,
    14 MB, plain) 1.26 s through this reader against 1.43 s from the open file; reuters.trn
    (8 MB) 0.24 s against 0.27 s; ``load_libsvm_files`` of ijcnn1.bz2 and ijcnn1.t.bz2 2.8-3.7
    s against 5.7-7.4 s before (large reads instead of BZ2File's line by line)."""

    def __init__(self, path: Path, limit: int):
        self.path, self.limit = path, int(limit)
        self.started = self.finished = False

    def read(self, size=-1):  # pragma: no cover - scikit-learn only checks that it exists
        raise io.UnsupportedOperation("read the lines by iterating")

    def _too_long(self, lineno):
        return _LineError(f"{self.path}, line {lineno}: longer than {_bytes(self.limit)} "
                          f"without a line end; a LIBSVM line holds one sample — is this a "
                          f"LIBSVM text file? (limit: svmbound.datasets.MAX_LINE_BYTES)")

    def __iter__(self):
        self.started = True
        limit = self.limit
        size = min(_CHUNK_BYTES, limit)
        lineno = 1                         # the line the next byte belongs to
        pieces, carried = [], 0            # the unfinished line
        with _open_binary(self.path) as fh:
            while True:
                chunk = fh.read(size)
                if not chunk:
                    break
                nul = chunk.find(b"\0")
                if nul >= 0:
                    at = lineno + chunk.count(b"\n", 0, nul)
                    raise _LineError(f"{self.path}, line {at}: a NUL byte (binary data): not a "
                                     f"LIBSVM text file")
                end = chunk.rfind(b"\n")
                if end < 0:
                    pieces.append(chunk)
                    carried += len(chunk)
                    if carried > limit:
                        raise self._too_long(lineno)
                    continue
                if carried + chunk.find(b"\n") > limit:
                    raise self._too_long(lineno)
                if pieces:                 # lines inside one chunk are shorter than limit
                    pieces.append(chunk)
                    chunk = b"".join(pieces)
                    end += carried
                lines = chunk[:end].split(b"\n")
                lineno += len(lines)
                rest = chunk[end + 1:]
                pieces, carried = ([rest], len(rest)) if rest else ([], 0)
                yield from lines
        if pieces:
            yield b"".join(pieces)
        self.finished = True


def _lines(path: Path, limit=None):
    """(line number, line without its end) of ``path``, with the reader's checks."""
    return enumerate(_Lines(path, MAX_LINE_BYTES if limit is None else limit), start=1)


def _line_indices(line: bytes):
    """Feature indices of one LIBSVM line (no validation; [] for blank/comment lines)."""
    text = line.split(b"#", 1)[0].split()
    out = []
    for tok in text[1:]:
        idx, sep, _ = tok.partition(b":")
        if sep and idx != b"qid":
            try:
                out.append(int(idx))
            except ValueError:
                pass
    return out


def _find_line(path: Path, predicate, limit=None):
    """(line number, text) of the first line whose feature indices satisfy ``predicate``."""
    for lineno, line in _lines(path, limit):
        if predicate(_line_indices(line)):
            text = line.decode(errors="replace").rstrip("\r\n")
            return lineno, (text if len(text) <= 120 else text[:117] + "...")
    return None, ""


# Our own line check, run only after scikit-learn's parser failed: its errors name neither the
# file nor the line ("could not convert string to float: b'x'", "Feature indices in
# SVMlight/LibSVM data file should be sorted and unique.").
def _check_libsvm_line(line: bytes, n_features, base: int = 1):
    """None if ``line`` is a valid LIBSVM line, else a short reason (``base``: the index of the
    first column, for the ``n_features`` check)."""
    text = line.split(b"#", 1)[0].strip()
    if not text:
        return None
    tokens = text.split()
    try:
        float(tokens[0])
    except ValueError:
        return f"label {tokens[0].decode(errors='replace')!r} is not a number"
    prev = -1
    for tok in tokens[1:]:
        t = tok.decode(errors="replace")
        if t.startswith("qid:"):
            continue
        idx, sep, val = t.partition(":")
        if not sep:
            return f"token {t!r} is not of the form index:value"
        try:
            k = int(idx)
        except ValueError:
            return f"feature index {idx!r} in {t!r} is not an integer"
        try:
            float(val)
        except ValueError:
            return f"value {val!r} in {t!r} is not a number"
        if k < 0:
            return f"negative feature index {k}"
        if k > MAX_FEATURE_INDEX:
            return f"feature index {k} is too large (at most {MAX_FEATURE_INDEX})"
        if k <= prev:
            return f"feature indices must be strictly increasing ({prev} then {k})"
        if n_features is not None and k - base >= n_features:
            return f"feature index {k} exceeds n_features={n_features}"
        prev = k
    return None


def _first_bad_line(path: Path, n_features, base: int = 1, limit=None):
    for lineno, line in _lines(path, limit):
        reason = _check_libsvm_line(line, n_features, base)
        if reason is not None:
            return lineno, reason, line.decode(errors="replace").rstrip("\r\n")
    return None


def _parse_error(path: Path, exc: Exception, n_features=None, base: int = 1,
                 limit=None) -> Exception:
    try:
        bad = _first_bad_line(path, n_features, base, limit)
    except _LineError as err:
        return ValueError(str(err))
    except (OSError, EOFError, lzma.LZMAError) as err:
        return _read_error(path, err)
    if bad is None:
        return ValueError(f"{path}: cannot parse as LIBSVM format ({exc}); no single bad line "
                          f"found by a line scan")
    lineno, reason, text = bad
    if len(text) > 120:
        text = text[:117] + "..."
    return ValueError(f"{path}, line {lineno}: {reason}: {text!r} (scikit-learn said: {exc})")


def _read_sparse(paths, limit: int):
    """[(CSR X, y), …] of the LIBSVM files ``paths``, read together by scikit-learn's
    ``load_svmlight_files`` with the indices taken literally (column k = index k, one column
    count for all), never densified; read and parse errors as described in
    ``load_libsvm_files``, each naming its file."""
    from sklearn.datasets import load_svmlight_files

    for path in paths:
        if not path.exists():
            raise FileNotFoundError(f"LIBSVM file not found: {path}")
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "is a directory, not a LIBSVM file", str(path))
    readers = [_Lines(path, limit) for path in paths]

    def culprit():
        return next((r.path for r in readers if r.started and not r.finished), paths[0])

    try:
        out = load_svmlight_files(readers, zero_based=True, dtype=np.float64)
    except _LineError as exc:
        raise ValueError(str(exc)) from None
    except (ValueError, TypeError, IndexError, UnicodeDecodeError, OverflowError) as exc:
        raise _parse_error(culprit(), exc, limit=limit) from exc
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise _read_error(culprit(), exc) from exc
    parts = []
    for path, X, y in zip(paths, out[0::2], out[1::2]):
        if X.shape[0] == 0:
            raise ValueError(f"{path}: no data lines (the file is empty or holds only comments)")
        parts.append((X, np.asarray(y, dtype=np.float64)))
    return parts


def load_libsvm_files(paths, n_features=None, *, max_dense_bytes=None,
                      return_info: bool = False, sparse=False, width: str = "max",
                      max_line_bytes=None):
    """Read several LIBSVM/SVMlight files (plain, .bz2, .gz or .xz) with one column numbering:
    ``[X_0, y_0, X_1, y_1, …]`` (dense float64 arrays with the same number of columns, labels
    as written), and with ``return_info`` also a dict: ``base``, the feature index of column 0
    (1, or 0 for zero-based files), ``n_columns``, the columns each file uses (its largest
    index + 1 − base), and ``sparse``.

    The files are parsed by scikit-learn's ``load_svmlight_files`` (one column count for all
    of them). LIBSVM files number features from 1. When no file uses the index 0, column k − 1
    holds feature k (base 1). When any file uses index 0, every file is read zero-based
    (column k holds feature k, base 0) — decided for all the files together, so that a training
    and a test file never disagree. Index 0 in only a few lines of a file (at most 1 %, or one
    line) is most likely a slip in a 1-based file: a ``DataWarning`` names the file and the
    first such line; the value is kept as its own column 0 and no other column moves.
    (scikit-learn's ``zero_based='auto'`` makes the same decision but cannot say which line
    used the 0; hence ``zero_based=True`` and the shift here.)

    The number of columns is the widest file's (``width="max"``) or, with ``width="first"``,
    the first file's — a training file: a later (test) file's features beyond it are dropped
    with a ``DataWarning`` naming the file. ``n_features`` fixes the number of columns; a file
    using more is a ValueError naming the line (with ``width="first"``: the first file; the
    later ones are cut with the warning).

    Checks, each a ``ValueError`` naming the file (and the line where one is to blame): parse
    errors; a line longer than ``max_line_bytes`` (default ``MAX_LINE_BYTES``, 64 MiB) or
    holding a NUL byte — binary data, such as ``/dev/zero``, which would otherwise be read
    until the memory runs out; an index beyond ``n_features``; a corrupt or truncated
    compressed file; a dense matrix larger than ``max_dense_bytes`` (default
    ``dense_limit_bytes()``; a stray index such as ``2000000000:1`` would otherwise make numpy
    allocate terabytes) — checked on the sparse data, before anything dense is built. A
    missing file raises ``FileNotFoundError``, an unreadable one ``PermissionError`` (or the
    ``OSError`` of the system) with the path. Columns that hold no value in any file and cost
    at least ``WIDE_WARN_BYTES`` (a stray index such as ``134217728:1``, or a large
    ``n_features``) give a ``DataWarning`` naming the line with the largest index and the cost.

    ``sparse=True`` returns each X as a canonical float64 scipy CSR matrix (never densified;
    svmbound fits on CSR directly, issue 13). The other checks are the same; the size check is
    then on what grows with the number of columns — the solvers' column pointers, 8 bytes a
    column — so that a stray index still fails here, naming the line. ``sparse="auto"``: CSR
    when at most ``AUTO_SPARSE_DENSITY`` of the entries (all files together) are non-zero,
    dense otherwise; ``info["sparse"]`` says which.
    """
    if not (sparse is True or sparse is False or sparse == "auto"):
        raise ValueError(f"sparse must be True, False or 'auto', got {sparse!r}")
    if width not in ("max", "first"):
        raise ValueError(f"width must be 'max' or 'first', got {width!r}")
    paths = [Path(p).expanduser() for p in paths]
    if not paths:
        raise ValueError("no LIBSVM file given")
    if n_features is not None:
        if isinstance(n_features, bool) or int(n_features) != n_features or n_features < 1:
            raise ValueError(f"n_features must be an integer >= 1, got {n_features!r}")
        n_features = int(n_features)
    limit = dense_limit_bytes() if max_dense_bytes is None else float(max_dense_bytes)
    line_limit = MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
    if isinstance(line_limit, bool) or int(line_limit) != line_limit or line_limit < 1:
        raise ValueError(f"max_line_bytes must be an integer >= 1, got {max_line_bytes!r}")
    line_limit = int(line_limit)
    parts = _read_sparse(paths, line_limit)
    uses_zero = [bool(np.any(X.indices == 0)) for X, _ in parts]
    base = 0 if any(uses_zero) else 1
    for path, (X, _), zero in zip(paths, parts, uses_zero):
        if not zero:
            continue
        rows = int(np.count_nonzero(X.indices == 0))
        if rows <= max(1, 0.01 * X.shape[0]):
            lineno, text = _find_line(path, lambda idx: 0 in idx, line_limit)
            warnings.warn(
                f"{path}, line {lineno}: feature index 0 ({text!r}) in {rows} of {X.shape[0]} "
                f"lines; LIBSVM numbers features from 1. Read zero-based (index 0 is its own "
                f"column, every other feature keeps its index{' in all files' if len(paths) > 1 else ''})",
                DataWarning, stacklevel=2)
    # the columns each file uses (scikit-learn gives every file the widest file's shape)
    widths = [int(X.indices.max()) + 1 - base if X.nnz else 0 for X, _ in parts]
    if n_features is not None:
        n_cols = n_features
    else:
        n_cols = widths[0] if width == "first" else max(widths)
    if n_cols == 0:
        raise ValueError(f"{', '.join(map(str, paths))}: no line has a feature (index:value)")
    strict = range(1) if width == "first" else range(len(paths))
    for k in strict:
        if widths[k] > n_cols:                            # only with n_features given
            top = widths[k] - 1 + base
            lineno, text = _find_line(paths[k], lambda idx: top in idx, line_limit)
            raise ValueError(f"{paths[k]}, line {lineno}: feature index {top} exceeds "
                             f"n_features={n_features}: {text!r}")
    for path, (X, _), cols in list(zip(paths, parts, widths))[1:]:
        if cols > n_cols:                                 # width="first": cut, and say so
            warnings.warn(f"test file {path} uses feature indices up to {cols + base - 1}, "
                          f"beyond the {n_cols} features of the training data {paths[0]}; "
                          f"they are ignored", DataWarning, stacklevel=2)
    kept = [_columns(X, base, n_cols) for X, _ in parts]
    if sparse == "auto":
        nnz = sum(X.nnz for X in kept)
        rows = sum(X.shape[0] for X in kept)
        sparse = bool(nnz <= AUTO_SPARSE_DENSITY * float(rows) * n_cols)
    top = max(int(X.indices.max()) if X.nnz else -1 for X in kept)  # largest column used
    for X in kept:
        need = float(X.shape[0]) * n_cols * 8 if not sparse else (n_cols + 1.0) * 8
        if need > limit:
            what = (f"a dense {X.shape[0]} x {n_cols} float64 matrix of {_bytes(need)}"
                    if not sparse else f"a sparse matrix of {n_cols} columns, whose column "
                    f"pointers alone take {_bytes(need)}")
            if n_features is not None and n_features > top + 1:
                raise ValueError(f"n_features={n_features} would make {what} (limit "
                                 f"{_bytes(limit)})")
            path, lineno, text = _top_line(paths, kept, top, base, line_limit)
            raise ValueError(f"{path}, line {lineno}: feature index {top + base} would make "
                             f"{what} (limit {_bytes(limit)}) — is the index a typo? ({text!r})")
    _warn_empty_columns(paths, kept, n_cols, base, sparse, n_features, line_limit)
    out = []
    for X, (_, y) in zip(kept, parts):
        out += [X if sparse else np.ascontiguousarray(X.toarray(), dtype=np.float64), y]
    return (out, {"base": base, "n_columns": widths, "sparse": sparse}) if return_info else out


def _columns(X, base: int, n_cols: int):
    """The canonical float64 CSR matrix of columns base … base + n_cols − 1 of X (scikit-learn's
    parse, indices taken literally), column k − base holding index k; never densified."""
    import scipy.sparse as sp

    X = sp.csr_matrix(X)
    if X.nnz and int(X.indices.max()) >= base + n_cols:   # later files beyond the width
        X = X[:, :base + n_cols]
    # the parse's own arrays (nothing else refers to them): no copy but the shifted indices
    X = sp.csr_matrix((X.data.astype(np.float64, copy=False),
                       X.indices - base if base else X.indices, X.indptr),
                      shape=(X.shape[0], n_cols))
    X.sort_indices()                # scikit-learn's parse refuses duplicate or unsorted indices
    return X


def _top_line(paths, parts, top: int, base: int, line_limit):
    """(file, line number, text) of the first line using column ``top`` (index top + base)."""
    k = next(i for i, X in enumerate(parts) if X.nnz and int(X.indices.max()) == top)
    return (paths[k],) + _find_line(paths[k], lambda idx: top + base in idx, line_limit)


def _warn_empty_columns(paths, parts, n_cols, base, sparse, n_features, line_limit):
    """The DataWarning of ``load_libsvm_files`` for columns that hold no value in any file but
    cost memory: those past a stray index (``1 1:1 134217728:1``) or a large ``n_features``.
    Dense, each costs 8 bytes a row; sparse (CSR), 8 bytes in every column-pointer array the
    sparse kernels build (issue 29, item 9)."""
    used = np.unique(np.concatenate([X.indices for X in parts]))
    empty = n_cols - used.size
    rows = sum(X.shape[0] for X in parts)
    cost = 8.0 * empty * (1 if sparse else rows)
    if cost < WIDE_WARN_BYTES or empty < used.size:
        return
    top = int(used[-1]) if used.size else -1            # the largest column holding a value
    if sparse:
        what = (f"read as CSR, each column costs 8 bytes in every column-pointer array the "
                f"sparse kernels build: {_bytes(cost)} for the empty ones")
    else:
        what = (f"read dense, the empty columns take {_bytes(cost)} of the {rows} x {n_cols} "
                f"float64 matrix")
    if n_features is not None and n_features > top + 1:
        where = f"n_features={n_features}"
    else:
        path, lineno, text = _top_line(paths, parts, top, base, line_limit)
        nxt = int(used[-2]) + base if used.size > 1 else None
        where = (f"{path}, line {lineno}: feature index {top + base} ({text!r}; the next "
                 f"largest index is {nxt})")
    warnings.warn(f"{where} makes {n_cols} columns, of which {used.size} hold a value; {what}. "
                  f"Is it a typo?", DataWarning, stacklevel=3)


#: ``load_libsvm_files(sparse="auto")`` keeps CSR at or below this fraction of non-zeros.
AUTO_SPARSE_DENSITY = 0.1


def _bytes(n: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= 0.9995 * size:            # 1023.99 MiB is "1 GiB", not "1.02e+03 MiB"
            v = n / size
            return f"{v:.3g} {unit}" if v < 999.5 else f"{v:.0f} {unit}"
    return f"{int(n)} bytes"


def load_libsvm(path, n_features=None, *, max_dense_bytes=None, sparse: bool = False,
                max_line_bytes=None):
    """Read a LIBSVM/SVMlight file (plain, .bz2, .gz or .xz) as ``(X, y)``.

    ``X`` is a dense float64 array, ``y`` the labels as float64 (as written in the file; they
    are not mapped to ±1). ``n_features`` fixes the number of columns (pass it when the file
    may not use its last feature index). Features are numbered from 1 unless the file uses the
    index 0 (see ``load_libsvm_files``, which reads a training and a test file together and
    checks what this function checks, the line length included). A missing file raises
    ``FileNotFoundError``; a parse error raises ``ValueError`` naming the file and the first
    offending line. ``sparse=True``: X as a float64 CSR matrix, never densified.
    """
    X, y = load_libsvm_files([path], n_features, max_dense_bytes=max_dense_bytes, sparse=sparse,
                             max_line_bytes=max_line_bytes)
    return X, y


