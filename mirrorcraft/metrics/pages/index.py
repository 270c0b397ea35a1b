"""``report/index.html``: the study report as one self-contained page.

Why: the report was Markdown and PNGs; a page shows the same header, every table (sortable: click a header;
tiny inline JS), the plots (the report's own PNGs, inlined as base64 so the page needs nothing beside it) and
a sortable list of every episode linking to its viewer page (``report/<episode_id>.html``, written by the same
``report`` run, beside the index: flat, so ``report/`` stays one folder of files). Values are rounded for
display exactly as in the Markdown tables; each numeric cell keeps its unrounded value in ``data-v`` for
sorting.
"""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from mirrorcraft.contracts import EpisodeRecord
from mirrorcraft.contracts.teams import TeamEpisodeRecord
from mirrorcraft.metrics.pages.episode import Episode, episode_file_name, template_env, write_episode_pages
from mirrorcraft.metrics.tables import Table, _fmt

__all__ = ["INDEX_FILE", "episode_rows", "render_index", "write_report_pages"]

INDEX_FILE = "index.html"


def _markdown_lines(text: str) -> Markup:
    """The report header's Markdown (a title, ``-`` lists, two levels, ``**bold**``) as HTML."""
    out: list[str] = []
    depth = 0

    def inline(s: str) -> str:
        return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", str(escape(s)))

    for raw in text.splitlines():
        line = raw.rstrip()
        m = re.match(r"^( *)- (.*)$", line)
        if m:
            level = 1 + len(m.group(1)) // 2
            while depth < level:
                out.append("<ul>")
                depth += 1
            while depth > level:
                out.append("</ul>")
                depth -= 1
            out.append(f"<li>{inline(m.group(2))}</li>")
            continue
        while depth:
            out.append("</ul>")
            depth -= 1
        if line.startswith("# "):
            continue  # the page has its own title
        if line:
            out.append(f"<p>{inline(line)}</p>")
    out += ["</ul>"] * depth
    return Markup("\n".join(out))


def _cell(value: Any, fmt: str) -> Markup:
    shown = escape(_fmt(value, fmt))
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (isinstance(value, float) and math.isnan(value))
    ):
        return Markup(f"<td>{shown}</td>")
    return Markup(f'<td class="num" data-v="{value!r}">{shown}</td>')


def _table_html(t: Table) -> dict[str, Any]:
    rows = [[_cell(r.get(c.key), c.fmt) for c in t.columns] for r in t.rows]
    return {
        "name": t.name,
        "title": t.title,
        "headers": [c.header for c in t.columns],
        "rows": rows,
        "notes": t.notes,
    }


def episode_rows(records: Sequence[EpisodeRecord | TeamEpisodeRecord]) -> list[dict[str, Any]]:
    """One row per episode for the index's episode table (with the link to its page beside the index)."""
    rows = []
    for r in records:
        href = episode_file_name(r.episode_id)
        if isinstance(r, TeamEpisodeRecord):
            i = r.identity
            rows.append({
                "id": r.episode_id, "href": href, "what": f"{i.scenario} {i.arena_variant}",
                "who": f"{i.tested.label} ({i.tested_side}) vs {i.opponent.label}", "rep": f"{i.repeat}#{i.block_index}",
                "score": f"{r.outcome.red:g} : {r.outcome.blue:g}", "score_v": r.tested_score,
                "end": r.outcome.end_reason.value, "actions": sum(len(t.actions) for t in r.trajectories),
            })  # fmt: skip
        else:
            i = r.identity
            rows.append({
                "id": r.episode_id, "href": href, "what": f"{i.world_id} {i.task.value}",
                "who": f"{i.configuration} · {i.model.name}", "rep": str(i.repetition),
                "score": str(r.outcome.score), "score_v": r.outcome.score, "end": r.outcome.end_reason.value,
                "actions": r.outcome.actions_used,
            })  # fmt: skip
    return rows


def render_index(
    title: str,
    header_markdown: str,
    tables: Sequence[Table],
    plots: Sequence[Path],
    records: Sequence[EpisodeRecord | TeamEpisodeRecord],
    files: Sequence[str] = (),
) -> str:
    """The report page (module docstring). ``plots`` are PNG files, inlined; ``files`` are the report's other
    files, linked."""
    images = [
        {"name": p.name, "uri": "data:image/png;base64," + base64.b64encode(p.read_bytes()).decode("ascii")}
        for p in plots
        if p.is_file()
    ]
    return (
        template_env()
        .get_template("index.html.j2")
        .render(
            title=title,
            header=_markdown_lines(header_markdown),
            tables=[_table_html(t) for t in tables],
            images=images,
            episodes=episode_rows(records),
            files=list(files),
        )
    )


def write_report_pages(
    folder: Path,
    *,
    title: str,
    header_markdown: str,
    tables: Sequence[Table],
    plots: Sequence[Path],
    records: Sequence[EpisodeRecord] = (),
    team_records: Sequence[TeamEpisodeRecord] = (),
    snapshots: dict[str, Any] | None = None,
    files: Sequence[str] = (),
    arenas: Path | None = None,
) -> list[Path]:
    """Write ``folder/index.html`` and ``folder/<id>.html`` for every record; returns the index first, then
    the episode pages. ``snapshots`` maps episode id → its map snapshot (from the run notes); ``arenas`` is the
    arena catalogue team pages take their terrain from (an unreadable arena leaves that page without it)."""
    snaps = snapshots or {}
    pages = write_episode_pages(
        [Episode(r, snaps.get(r.episode_id)) for r in records],
        list(team_records),
        folder,
        arenas=arenas,
        arenas_required=False,
    )
    index = folder / INDEX_FILE
    html = render_index(title, header_markdown, tables, plots, [*records, *team_records], files)
    index.write_text(html, encoding="utf-8")
    return [index, *pages]
