"""HTML pages of records and reports: the offline episode viewer and the study report as a page.

Self-contained pages (no server, no network, every asset inline) rendered with jinja2 templates
(``templates/``) and hand-drawn inline SVG (:mod:`.svg`); see docs/viewer.md.
"""

from mirrorcraft.metrics.pages.episode import (
    Episode,
    episode_file_name,
    read_episode_file,
    render_episode_page,
    render_team_page,
    write_episode_pages,
)

__all__ = [
    "Episode",
    "episode_file_name",
    "read_episode_file",
    "render_episode_page",
    "render_team_page",
    "write_episode_pages",
]
