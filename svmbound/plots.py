"""Contour maps of a criterion over (ln C, ln σ²) with the search path drawn on them, and the
test-error map beside it (as Chung Fig. 2–3, Chapelle Fig. 1); the per-feature scaling
factors of an ARD model (Chapelle Fig. 7)."""

from __future__ import annotations

import numpy as np


def plot_contours(grid, file, *, path=None, paths=None, candidates=None, final=None,
                  title="criterion", test_label="test error (%)", test_scale=100.0):
    """Write a PNG: criterion contours (left) and, if ``grid.test_error`` exists, test error
    contours (right). ``path`` is a sequence of accepted θ = (ln C, ln σ²) points, ``paths``
    several, {label: points} (the default strategy's bound searches), ``candidates`` a list of
    (θ, text) drawn with their text (the validation's candidates and their CV errors);
    ``final`` the chosen point; the right panel shows ``test_scale``·``grid.test_error``
    under ``test_label`` (a regressor's: its test mean squared error, scale 1). Returns the file
    name."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [("value", grid.values, title)]
    if grid.test_error is not None:
        panels.append(("test", test_scale * grid.test_error, test_label))
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 5.0), squeeze=False)
    CC, SS = np.meshgrid(grid.log_C, grid.log_sigma2)
    for ax, (kind, Z, label) in zip(axes[0], panels):
        Zp = np.log10(np.maximum(Z, 1e-300)) if kind == "value" else Z
        cs = ax.contourf(CC, SS, Zp, levels=20, cmap="viridis")
        ax.contour(CC, SS, Zp, levels=20, colors="k", linewidths=0.3)
        fig.colorbar(cs, ax=ax, label=("log10 " + label) if kind == "value" else label)
        drawn = dict(paths or {})
        if path is not None and len(path):
            drawn = {"search path": path, **drawn}
        for (name, pts), color in zip(drawn.items(), ("red", "deepskyblue", "magenta",
                                                       "lime")):
            if not len(pts):
                continue
            P = np.asarray(pts, dtype=float)
            ax.plot(P[:, 0], P[:, 1], "o-", color=color, ms=3, lw=1.2, label=name)
            ax.plot(P[0, 0], P[0, 1], "s", color="white", mec="k", ms=6)
        for k, (x, text) in enumerate(candidates or []):
            ax.plot(x[0], x[1], "D", color="white", mec="k", ms=6,
                    label="candidates" if k == 0 else None)
            ax.annotate(text, (x[0], x[1]), fontsize=6, color="white",
                        xytext=(4, 4), textcoords="offset points")
        if final is not None:
            ax.plot(final[0], final[1], "*", color="orange", mec="k", ms=14, label="chosen")
        i, j = np.unravel_index(np.nanargmin(Z), Z.shape)
        ax.plot(grid.log_C[j], grid.log_sigma2[i], "x", color="white", ms=9, mew=2,
                label="grid minimum")
        ax.set_xlabel("ln C")
        ax.set_ylabel("ln σ²")
        ax.set_title(label)
        ax.legend(loc="best", fontsize=7)
    fig.tight_layout()
    fig.savefig(file, dpi=110)
    plt.close(fig)
    return file


def plot_feature_scales(scales, file, *, names=None, relevant=None,
                        title="scaling factors 1/σ_k"):
    """Write a PNG of the per-feature scaling factors θ_k = 1/σ_k of an ARD model
    (``BoundSVC.feature_scales_``), one bar per feature in input order, as Chapelle et al.
    Fig. 7; ``relevant`` (feature indices) are drawn in another colour, ``names`` label the
    ticks when there are at most 40 features. Returns the file name."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = np.asarray(scales, dtype=float)
    if s.ndim != 1 or s.size == 0 or not np.all(np.isfinite(s)) or np.any(s <= 0):
        raise ValueError("scales must be a non-empty 1-D array of positive finite numbers "
                         "(feature_scales_ of a per-feature model)")
    colours = np.full(s.size, "tab:blue", dtype=object)
    if relevant is not None:
        colours[np.asarray(relevant, dtype=int)] = "tab:red"
    fig, ax = plt.subplots(figsize=(min(12.0, 4.0 + 0.08 * s.size), 3.6))
    ax.bar(np.arange(s.size), s, color=list(colours), width=0.8)
    ax.set_yscale("log")
    ax.set_xlabel("feature")
    ax.set_ylabel("1/σ_k")
    ax.set_title(title)
    if names is not None and s.size <= 40:
        ax.set_xticks(np.arange(s.size), [str(n) for n in names], rotation=90, fontsize=7)
    fig.tight_layout()
    fig.savefig(file, dpi=110)
    plt.close(fig)
    return file
