"""The warm-start state file of a search log (``<log>.state``), in a format that cannot run code.

A resumed search restores its criterion's ``warm_state()`` — warm-start dual solutions, the
cached radius solution, counters, the kernel, the last evaluation — so that its first new
evaluation returns the bits of the uninterrupted run (``search.log``). The state file holds
that tree of values as a NumPy ``.npz`` archive read with ``allow_pickle=False``:

* member ``state.json``: a UTF-8 JSON document ``{"format": "svmbound-state", "version": 2,
  "states": {tag: [entry index, node]}}``;
* members ``a0``, ``a1``, …: the numeric arrays the nodes refer to (never object arrays).

A node is a JSON scalar (None, bool, int, float, str; floats as ``repr``, so bit for bit), a
list, or one object with a single tag key: ``{"tuple": [...]}``, ``{"map": [[key, value],
...]}``, ``{"array": "a3"}``, ``{"scalar": "a4"}`` (a NumPy scalar, as a 0-d array), or
``{"object": name, "fields": node}`` where ``name`` is one of the classes of
:func:`_registry` — the kernels, the SVM and radius solutions and ``Evaluation`` — rebuilt
without calling any code of the file's choosing (``cls.__new__`` and its ``__dict__``).
Anything else fails with :class:`StateFileError`; the log then warns and resumes cold, as
with a missing state file.
"""

from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np

from ..criteria.base import Evaluation
from ..kernels import Kernel
from ..solvers.radius import RadiusSolution
from ..solvers.svm import DualSolution
from ..solvers.svr import SVRSolution

__all__ = ["StateFileError", "encode", "decode", "write_states", "read_states",
           "STATE_FORMAT", "STATE_VERSION"]

STATE_FORMAT = "svmbound-state"
STATE_VERSION = 2
_JSON = "state.json"


class StateFileError(ValueError):
    """A state that cannot be written or read safely (damaged, foreign or unknown content)."""


def _subclasses(cls):
    out = {cls}
    for sub in cls.__subclasses__():
        out |= _subclasses(sub)
    return out


def _registry() -> dict:
    """name -> class of the objects a state may hold: every Kernel class, the dual and radius
    solutions and Evaluation. Looked up when used, so that a kernel class defined later
    (``kernels_ard``) is in it."""
    classes = _subclasses(Kernel) | {DualSolution, SVRSolution, RadiusSolution, Evaluation}
    return {f"{c.__module__}.{c.__qualname__}": c for c in classes}


def encode(obj, arrays: dict):
    """The JSON node of ``obj``; its arrays are copied into ``arrays`` (name -> ndarray)."""
    if obj is None or isinstance(obj, (bool, int, float, str)) and not isinstance(obj, np.generic):
        return obj
    if isinstance(obj, (np.ndarray, np.generic)):
        a = np.array(obj, copy=True)
        if a.dtype.hasobject:
            raise StateFileError(f"an array of Python objects cannot be stored ({a.dtype})")
        name = f"a{len(arrays)}"
        arrays[name] = a
        return {"array" if isinstance(obj, np.ndarray) else "scalar": name}
    if isinstance(obj, list):
        return [encode(v, arrays) for v in obj]
    if isinstance(obj, tuple):
        return {"tuple": [encode(v, arrays) for v in obj]}
    if isinstance(obj, dict):
        return {"map": [[encode(k, arrays), encode(v, arrays)] for k, v in obj.items()]}
    name = f"{type(obj).__module__}.{type(obj).__qualname__}"
    if _registry().get(name) is type(obj) and hasattr(obj, "__dict__"):
        return {"object": name, "fields": encode(dict(vars(obj)), arrays)}
    raise StateFileError(f"a {name} cannot be stored in a state file")


def decode(node, arrays):
    """The value of a node written by :func:`encode`; ``arrays`` maps names to arrays."""
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if isinstance(node, list):
        return [decode(v, arrays) for v in node]
    if not isinstance(node, dict) or len(node) not in (1, 2):
        raise StateFileError(f"unexpected node {str(node)[:60]!r}")
    if "tuple" in node and len(node) == 1:
        return tuple(decode(v, arrays) for v in _list(node["tuple"]))
    if "map" in node and len(node) == 1:
        out = {}
        for pair in _list(node["map"]):
            if not isinstance(pair, list) or len(pair) != 2:
                raise StateFileError("a map entry is not a [key, value] pair")
            key = decode(pair[0], arrays)
            try:
                out[key] = decode(pair[1], arrays)
            except TypeError:
                raise StateFileError(f"unhashable map key {key!r}") from None
        return out
    if ("array" in node or "scalar" in node) and len(node) == 1:
        name = node.get("array", node.get("scalar"))
        if not isinstance(name, str) or name not in arrays:
            raise StateFileError(f"the state refers to a missing array {name!r}")
        a = np.array(arrays[name], copy=True)
        return a if "array" in node else a[()]
    if "object" in node and "fields" in node:
        cls = _registry().get(node["object"]) if isinstance(node["object"], str) else None
        if cls is None:
            raise StateFileError(f"unknown object type {str(node['object'])[:80]!r}")
        fields = decode(node["fields"], arrays)
        if not isinstance(fields, dict) or not all(isinstance(k, str) for k in fields):
            raise StateFileError(f"the fields of a {node['object']} are not a name map")
        obj = cls.__new__(cls)
        obj.__dict__.update(fields)
        return obj
    raise StateFileError(f"unexpected node keys {sorted(node)[:4]}")


def _list(v):
    if not isinstance(v, list):
        raise StateFileError("expected a list")
    return v


def write_states(path: str, states: dict, previous: str | None = None) -> None:
    """Write {tag: (entry index, (node, arrays))} to ``path`` atomically: a temporary file,
    then a rename; the file it replaces is first renamed to ``previous`` when given."""
    doc = {"format": STATE_FORMAT, "version": STATE_VERSION, "states": {}}
    members = {}
    for tag, (i, (node, arrays)) in states.items():
        renamed = {}
        for name, a in arrays.items():          # one namespace for the arrays of every tag
            renamed[name] = new = f"a{len(members)}"
            members[new] = a
        doc["states"][tag] = [int(i), _rename(node, renamed)]
    buf = io.BytesIO()
    np.savez(buf, **{_JSON: np.frombuffer(json.dumps(doc).encode(), dtype=np.uint8)},
             **members)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(buf.getvalue())
    if previous is not None and os.path.exists(path):
        os.replace(path, previous)
    os.replace(tmp, path)


def _rename(node, renamed):
    if isinstance(node, list):
        return [_rename(v, renamed) for v in node]
    if isinstance(node, dict):
        if set(node) in ({"array"}, {"scalar"}):
            (k, v), = node.items()
            return {k: renamed[v]}
        return {k: _rename(v, renamed) for k, v in node.items()}
    return node


def read_states(path: str) -> dict:
    """{tag: (entry index, state)} from a file written by :func:`write_states`. Raises
    ``OSError`` when it cannot be read and :class:`StateFileError` when it is not such a file
    (an older pickle state, a damaged or foreign file); nothing in it is executed."""
    try:
        with np.load(path, allow_pickle=False) as z:
            if not isinstance(z, np.lib.npyio.NpzFile) or _JSON not in z.files:
                raise StateFileError("not a svmbound state file")
            arrays = {k: z[k] for k in z.files if k != _JSON}
            doc = json.loads(z[_JSON].tobytes().decode())
    except (ValueError, EOFError, zipfile.BadZipFile, UnicodeDecodeError, KeyError) as exc:
        if isinstance(exc, StateFileError):
            raise
        raise StateFileError(f"not a readable svmbound state file ({exc})") from None
    if (not isinstance(doc, dict) or doc.get("format") != STATE_FORMAT
            or doc.get("version") != STATE_VERSION or not isinstance(doc.get("states"), dict)):
        raise StateFileError(f"not a {STATE_FORMAT} file of version {STATE_VERSION}")
    out = {}
    for tag, entry in doc["states"].items():
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int)):
            raise StateFileError(f"the state of {tag!r} is not [index, state]")
        state = decode(entry[1], arrays)
        if not isinstance(state, dict):
            raise StateFileError(f"the state of {tag!r} is not a map")
        out[tag] = (entry[0], state)
    return out
