"""PNG figures of a report (matplotlib, Agg backend: no display needed).

* :func:`plot_rie_by_suite` — RIE_SC and RIE_SR per suite (and pooled) as bars with 95% bootstrap CIs.
* :func:`plot_irr_rl` — IRR (%) as circles on the left axis and RL (actions) as squares on the right axis
  per configuration (paper figure 2).
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend must be chosen first)
import numpy as np  # noqa: E402

from mirrorcraft.metrics.tables import Table  # noqa: E402


def _err(rows: list[dict], key: str) -> np.ndarray:
    lo, hi = [], []
    for r in rows:
        v = r.get(key)
        ci = r.get(f"{key}_ci", (math.nan, math.nan))
        lo.append(v - ci[0] if v is not None and not math.isnan(ci[0]) else 0.0)
        hi.append(ci[1] - v if v is not None and not math.isnan(ci[1]) else 0.0)
    return np.array([lo, hi])


def _top(values: list[float]) -> float:
    finite = [v for v in values if v is not None and not math.isnan(v)]
    return 1.15 * max(finite) if finite and max(finite) > 0 else 1.0


def plot_rie_by_suite(table: Table, path: Path) -> Path:
    """Bar chart of RIE_SC and RIE_SR per suite with CI error bars, from :func:`tables.by_suite`.

    Args:
        table: the ``by_suite`` table.
        path: PNG file to write.

    Returns:
        ``path``.
    """
    rows = [r for r in table.rows if r.get("rie_sc") is not None]
    labels = [r["suite"] for r in rows]
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(rows) + 2), 3.6), dpi=120)
    w = 0.38
    sc = [r["rie_sc"] for r in rows]
    sr = [r["rie_sr"] for r in rows]
    ax.bar(x - w / 2, sc, w, yerr=_err(rows, "rie_sc"), capsize=3, label="RIE_SC (Score)", color="#4477aa")
    ax.bar(x + w / 2, sr, w, yerr=_err(rows, "rie_sr"), capsize=3, label="RIE_SR (pp)", color="#ee6677")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x, labels)
    ax.set_ylabel("Vanilla − Mirror")
    ax.set_title("RIE by rule suite (95% cluster bootstrap CI over Vanilla worlds)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_irr_rl(table: Table, path: Path) -> Path:
    """IRR (left axis, circles) and RL (right axis, squares) per configuration, from :func:`tables.irr_rl`.

    Args:
        table: the ``irr_rl`` table.
        path: PNG file to write.

    Returns:
        ``path``.
    """
    rows = table.rows
    labels = [r["configuration"] for r in rows]
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(rows) + 3), 3.8), dpi=120)
    # Side by side (±0.12) so a circle and a square at the same height stay visible.
    h1 = ax.plot(x - 0.12, [r["avg_irr"] for r in rows], "o", color="#4477aa", markersize=8, label="IRR (%)")
    ax.set_ylabel("IRR (%)", color="#4477aa")
    ax.set_ylim(0, _top([r["avg_irr"] for r in rows]))
    ax2 = ax.twinx()
    h2 = ax2.plot(
        x + 0.12, [r["avg_rl"] for r in rows], "s", color="#ee6677", markersize=8, label="RL (actions)"
    )
    ax2.set_ylabel("RL (semantic actions)", color="#ee6677")
    ax2.set_ylim(0, _top([r["avg_rl"] for r in rows]))
    ax.legend(handles=h1 + h2, fontsize=8, loc="lower right")
    ax.set_xlim(-0.6, len(rows) - 0.4)
    ax.set_xticks(x, labels, rotation=20)
    ax.set_title("IRR and RL by configuration (equal weight over M01–M06)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
