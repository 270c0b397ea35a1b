"""Inline SVG of the viewer's pages: the top-down map with paths and action markers, the timeline, score curves.

Why hand-drawn SVG (not matplotlib): every action must be its own element carrying its outcome report (the
hover text, the tests count them), and the page must stay small and self-contained. Text is escaped with
``markupsafe`` (jinja2's own escaping); the functions return :class:`markupsafe.Markup`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from markupsafe import Markup, escape

from mirrorcraft.worlds.map_snapshot import MapSnapshot

__all__ = [
    "MapPoint",
    "MapTrack",
    "TimelineEvent",
    "kind_of",
    "map_svg",
    "markers",
    "score_svg",
    "timeline_svg",
]

#: Width in CSS pixels of a map panel's longer side.
MAP_PX = 520
#: Blocks around the path when there is no snapshot to frame the map.
BARE_MARGIN = 8


@cache
def markers() -> dict[str, Any]:
    """The marker table (``markers.json``: path colour, kinds of actions and their colours)."""
    text = resources.files("mirrorcraft.metrics.pages").joinpath("markers.json").read_text("utf-8")
    return json.loads(text)


def kind_of(skill: str) -> str:
    """The marker kind of a skill (``mine``, ``craft``, ``smelt``, ``place``, ``move``, ``other``)."""
    for kind, spec in markers()["kinds"].items():
        if skill in spec["skills"]:
            return kind
    return "other"


@dataclass
class MapPoint:
    """One action's position on the map."""

    index: int
    x: float
    z: float
    kind: str
    ok: bool
    title: str


@dataclass
class MapTrack:
    """One player's path: the start and one point per action that has a position."""

    name: str
    colour: str
    points: list[MapPoint] = field(default_factory=list)
    start: tuple[float, float] | None = None


def _f(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def map_svg(snapshot: MapSnapshot | None, image_uri: str | None, tracks: Sequence[MapTrack]) -> Markup:
    """The map panel: the snapshot image (if any), each track's path as a polyline, one ``circle.action`` per
    action position (fill = kind colour, ring = the track's colour, ``<title>`` = the outcome report) and a
    square at each start. Coordinates are world x (right) and z (down: north is up, as on a vanilla map)."""
    pts = [(p.x, p.z) for t in tracks for p in t.points] + [t.start for t in tracks if t.start is not None]
    if snapshot is not None:
        x0, z0, w, d = snapshot.x0, snapshot.z0, snapshot.width, snapshot.depth
    elif pts:
        xs, zs = [p[0] for p in pts], [p[1] for p in pts]
        x0, z0 = min(xs) - BARE_MARGIN, min(zs) - BARE_MARGIN
        w, d = max(16.0, max(xs) - x0 + BARE_MARGIN), max(16.0, max(zs) - z0 + BARE_MARGIN)
    else:
        x0, z0, w, d = -8, -8, 16, 16
    scale = MAP_PX / max(w, d)  # CSS pixels per block
    r, sw = 5.0 / scale, 2.5 / scale
    out = [
        f'<svg class="map" xmlns="http://www.w3.org/2000/svg" width="{_f(w * scale)}" height="{_f(d * scale)}" '
        f'viewBox="{_f(x0)} {_f(z0)} {_f(w)} {_f(d)}" data-scale="{_f(scale)}">'
    ]
    if image_uri is not None:
        out.append(
            f'<image class="terrain" href="{image_uri}" x="{x0}" y="{z0}" width="{w}" height="{d}" '
            'preserveAspectRatio="none" style="image-rendering:pixelated"/>'
        )
    else:
        out.append(
            f'<rect class="terrain bare" x="{_f(x0)}" y="{_f(z0)}" width="{_f(w)}" height="{_f(d)}" fill="#e8e8e8"/>'
        )
    kinds = markers()["kinds"]
    fail = markers()["failure_colour"]
    for t in tracks:
        line = ([t.start] if t.start is not None else []) + [(p.x, p.z) for p in t.points]
        if len(line) > 1:
            coords = " ".join(f"{_f(x)},{_f(z)}" for x, z in line)
            out.append(
                f'<polyline class="path" data-player="{escape(t.name)}" points="{coords}" fill="none" '
                f'stroke="{t.colour}" stroke-width="{_f(sw)}" stroke-linejoin="round"/>'
            )
        if t.start is not None:
            sx, sz = t.start
            out.append(
                f'<rect class="start" x="{_f(sx - r)}" y="{_f(sz - r)}" width="{_f(2 * r)}" height="{_f(2 * r)}" '
                f'fill="none" stroke="{t.colour}" stroke-width="{_f(sw)}"><title>{escape(t.name)}: start</title></rect>'
            )
        for p in t.points:
            fill = kinds.get(p.kind, kinds["other"])["colour"] if p.ok else fail
            out.append(
                f'<circle class="action kind-{p.kind}" data-index="{p.index}" data-player="{escape(t.name)}" '
                f'cx="{_f(p.x)}" cy="{_f(p.z)}" r="{_f(r)}" fill="{fill}" stroke="{t.colour}" '
                f'stroke-width="{_f(sw)}"><title>{escape(p.title)}</title></circle>'
            )
    out.append("</svg>")
    return Markup("".join(out))


@dataclass
class TimelineEvent:
    """A mark on the timeline: an action, a milestone or a rule encounter, at an action index."""

    at: float
    kind: str  # "action", "milestone", "encounter"
    label: str
    title: str
    colour: str = "#888888"


def timeline_svg(length: float, events: Sequence[TimelineEvent], *, unit: str = "action") -> Markup:
    """A horizontal timeline from 0 to ``length`` (actions or seconds): actions as ticks, milestones as green
    diamonds with their name, rule encounters as red triangles; each mark has its ``<title>``."""
    width, left, right = 560, 20, 20
    span = max(float(length), 1.0)

    def x(at: float) -> float:
        return left + (width - left - right) * at / span

    out = [f'<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{width}" height="92">']
    out.append(f'<line x1="{left}" y1="46" x2="{width - right}" y2="46" stroke="#444" stroke-width="1"/>')
    for k in range(0, int(span) + 1, max(1, int(span) // 10)):
        out.append(
            f'<text x="{_f(x(k))}" y="88" font-size="10" text-anchor="middle" fill="#444">{k}</text>'
            f'<line x1="{_f(x(k))}" y1="44" x2="{_f(x(k))}" y2="48" stroke="#444"/>'
        )
    lane = 0
    for e in events:
        cx = x(e.at)
        tip = f"<title>{escape(e.title)}</title>"
        if e.kind == "action":
            out.append(
                f'<rect class="event action-tick" x="{_f(cx - 2)}" y="38" width="4" height="16" '
                f'fill="{e.colour}" stroke="#333" stroke-width="0.5">{tip}</rect>'
            )
        elif e.kind == "milestone":
            lane = (lane + 1) % 2
            y = 22 - 12 * lane
            out.append(
                f'<path class="event milestone" d="M{_f(cx)},{_f(y - 6)} l6,6 l-6,6 l-6,-6 z" fill="#2ca02c">{tip}</path>'
                f'<text x="{_f(cx + 8)}" y="{_f(y + 4)}" font-size="10" fill="#1b6e1b">{escape(e.label)}</text>'
            )
        else:
            out.append(
                f'<path class="event encounter" d="M{_f(cx)},62 l6,11 l-12,0 z" fill="#d62728">{tip}</path>'
                f'<text x="{_f(cx + 8)}" y="74" font-size="10" fill="#a01010">{escape(e.label)}</text>'
            )
    out.append(f'<text x="{width - right}" y="12" font-size="10" text-anchor="end" fill="#444">{unit}</text>')
    out.append("</svg>")
    return Markup("".join(out))


def score_svg(
    series: Sequence[tuple[str, str, Sequence[tuple[float, float]]]],
    *,
    x_label: str,
    y_label: str = "Score",
    y_max: float | None = None,
    step: bool = True,
) -> Markup:
    """A line chart of ``(label, colour, [(x, y), ...])`` series (step lines: a score holds until it
    changes), with axes, ticks and a legend; each series is one ``polyline.series``."""
    width, height, left, bottom, top, right = 560, 220, 44, 30, 14, 14
    xs = [x for _, _, pts in series for x, _ in pts] or [0.0, 1.0]
    ys = [y for _, _, pts in series for _, y in pts] or [0.0]
    x_hi = max(max(xs), 1.0)
    y_hi = y_max if y_max is not None else max(max(ys) * 1.1, 1.0)

    def px(x: float) -> float:
        return left + (width - left - right) * x / x_hi

    def py(y: float) -> float:
        return height - bottom - (height - bottom - top) * y / y_hi

    out = [f'<svg class="scores" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">']
    out.append(
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="#444"/>'
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="#444"/>'
    )
    for i in range(5):
        yv = y_hi * i / 4
        out.append(
            f'<text x="{left - 4}" y="{_f(py(yv) + 3)}" font-size="10" text-anchor="end">{_f(round(yv, 1))}</text>'
            f'<line x1="{left}" y1="{_f(py(yv))}" x2="{width - right}" y2="{_f(py(yv))}" stroke="#ddd"/>'
        )
    n_ticks = min(10, int(x_hi)) or 1
    for i in range(n_ticks + 1):
        xv = x_hi * i / n_ticks
        out.append(
            f'<text x="{_f(px(xv))}" y="{height - bottom + 14}" font-size="10" text-anchor="middle">'
            f"{_f(round(xv, 1))}</text>"
        )
    out.append(
        f'<text x="{(left + width - right) / 2}" y="{height - 2}" font-size="11" text-anchor="middle">{escape(x_label)}</text>'
        f'<text x="10" y="{top + (height - top - bottom) / 2}" font-size="11" text-anchor="middle" '
        f'transform="rotate(-90 10 {top + (height - top - bottom) / 2})">{escape(y_label)}</text>'
    )
    for k, (label, colour, pts) in enumerate(series):
        coords: list[str] = []
        prev: tuple[float, float] | None = None
        for x, y in pts:
            if step and prev is not None:
                coords.append(f"{_f(px(x))},{_f(py(prev[1]))}")
            coords.append(f"{_f(px(x))},{_f(py(y))}")
            prev = (x, y)
        out.append(
            f'<polyline class="series" data-label="{escape(label)}" points="{" ".join(coords)}" fill="none" '
            f'stroke="{colour}" stroke-width="2"><title>{escape(label)}</title></polyline>'
        )
        out.append(
            f'<rect x="{left + 10}" y="{top + 4 + 14 * k}" width="10" height="3" fill="{colour}"/>'
            f'<text x="{left + 24}" y="{top + 9 + 14 * k}" font-size="10">{escape(label)}</text>'
        )
    out.append("</svg>")
    return Markup("".join(out))
