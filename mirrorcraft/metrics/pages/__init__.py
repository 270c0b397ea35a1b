"""HTML pages of records and reports: the offline episode viewer and the study report as a page.

Self-contained pages (no server, no network, every asset inline) rendered with jinja2 templates
(``templates/``) and hand-drawn inline SVG (:mod:`.svg`): :mod:`.episode` (one page per episode, MirrorCraft
and team), :mod:`.index` (``report/index.html``), :mod:`.cli` (``view``), :mod:`.colours` (map colours). See
docs/viewer.md. Nothing is imported here, so ``mirrorcraft.run --help`` stays light.
"""
