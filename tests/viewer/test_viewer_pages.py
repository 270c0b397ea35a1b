"""The episode viewer and the report page on real episodes, rendered in headless Chromium.

The records are played here, once per module: the scripted agent plays Iron Armor for 3 actions in the
catalogue world ``plains-1`` and its Mirror copy ``plains-1/M02`` (48-block worlds, embedded server at 100
ticks/s) through the real ``episode`` command, which writes ``results.jsonl`` and the runner files (record +
run notes with the map snapshot). M02's rule ``M02.log_drops_four_planks`` fires on the first action
(``mine oak_log``), so the Mirror page has a rule encounter on its timeline. Then ``view`` and ``report``
write the pages, and Chromium (Debian's, through selenium) loads them: no console errors, one SVG circle
per action, the hover text is the action's outcome report, and the screenshot's pixels show the path colour
at every recorded position over a map of more than one colour.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.refdata import REPO_ROOT
from support.runner_support import build_worlds
from support.viewer_support import (
    chromium,
    chromium_problem,
    colour_near,
    console_errors,
    hex_rgb,
    open_page,
    rect_of,
    screenshot,
)

from mirrorcraft.contracts import read_record
from mirrorcraft.metrics.pages.episode import report_text
from mirrorcraft.metrics.pages.svg import markers
from mirrorcraft.run import main as run_main
from mirrorcraft.worlds.anvil import Save
from mirrorcraft.worlds.catalogue import world_path
from mirrorcraft.worlds.map_snapshot import MapSnapshot

WORLDS = ("plains-1", "plains-1/M02")
BUDGET = 3


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("viewer-run")
    worlds = build_worlds(root / "worlds", list(WORLDS))
    run = root / "run"
    for world in WORLDS:
        cmd = [sys.executable, "-m", "mirrorcraft.run", "episode", "--world", world, "--task", "iron_armor",
               "--agent", "scripted", "--budget", str(BUDGET), "--out", str(run), "--worlds", str(worlds),
               "--tick-rate", "100"]  # fmt: skip
        done = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    files = {}
    for f in sorted((run / "episodes").glob("ep-*.json")):
        data = json.loads(f.read_text())
        rec = read_record(data["record"])
        files[rec.identity.world_id] = (rec, data["run_notes"])
    assert set(files) == set(WORLDS)
    return {"run": run, "worlds": worlds, "files": files}


@pytest.fixture(scope="module")
def browser():
    problem = chromium_problem()
    if problem is not None:
        pytest.skip(f"headless Chromium unavailable: {problem}")
    with chromium() as driver:
        yield driver


def _top_from_save(world: Path, x: int, z: int) -> tuple[str, int]:
    """The highest non-air block of a column, read block by block with the Anvil reader's ``block_at``."""
    chunk = Save.open(world).read_chunk(x >> 4, z >> 4)
    assert chunk is not None
    for y in range(319, -65, -1):
        name = chunk.block_at(x, y, z)[0]
        if name not in ("minecraft:air", "minecraft:cave_air", "minecraft:void_air"):
            return name, y
    raise AssertionError(f"empty column {x}, {z}")


def test_records_carry_positions_and_the_map_snapshot(played: dict) -> None:
    for world_id, (rec, notes) in played["files"].items():
        assert len(rec.trajectory) == BUDGET and rec.infrastructure_faults == []
        assert all(s.position is not None for s in rec.trajectory), world_id
        snap = MapSnapshot.model_validate(notes["map_snapshot"])
        assert snap.source.startswith("save (embedded server")
        # the area holds the spawn and every position, with the margin
        pts = [(s.position.x, s.position.z) for s in rec.trajectory] + [
            (rec.spawn.position.x, rec.spawn.position.z)
        ]
        for x, z in pts:
            assert (
                snap.x0 + 16 <= x < snap.x0 + snap.width - 16
                and snap.z0 + 16 <= z < snap.z0 + snap.depth - 16
            )
        # the spawn column (untouched by the agent, who walked to a tree) equals the catalogue save's, read
        # block by block; the agent moved, so the first position is not the spawn
        sx, sz = rec.spawn.position.x, rec.spawn.position.z
        assert snap.top_block(sx, sz) == _top_from_save(world_path(played["worlds"], world_id), sx, sz)
        first = rec.trajectory[0].position
        assert (round(first.x), round(first.z)) != (sx, sz)
        assert len(set(snap.palette)) >= 3  # grass, water, leaves...: a real map, not one colour
    m02 = played["files"]["plains-1/M02"][0]
    assert [e.rule_id for e in m02.encounters] == ["M02.log_drops_four_planks"]


def _check_panel(driver, panel, rec, img: np.ndarray) -> None:  # noqa: ANN001
    from selenium.webdriver.common.by import By

    circles = panel.find_elements(By.CSS_SELECTOR, "svg.map circle.action")
    assert len(circles) == len(rec.trajectory) == BUDGET  # one point per action
    assert [int(c.get_attribute("data-index")) for c in circles] == [s.index for s in rec.trajectory]
    path_rgb = hex_rgb(markers()["path"])
    svg = panel.find_element(By.CSS_SELECTOR, "svg.map")
    box = rect_of(driver, svg)
    scale = float(svg.get_attribute("data-scale"))
    vb = [float(v) for v in svg.get_dom_attribute("viewBox").split()]
    for c, step in zip(circles, rec.trajectory, strict=True):
        # the circle sits where the record says (world x, z → page pixels through the map's scale) ...
        r = rect_of(driver, c)
        cx, cy = r["x"] + r["w"] / 2, r["y"] + r["h"] / 2
        assert abs(cx - (box["x"] + (step.position.x - vb[0]) * scale)) < 1.5
        assert abs(cy - (box["y"] + (step.position.z - vb[1]) * scale)) < 1.5
        # ... and the screenshot shows the path's colour there
        assert colour_near(img, cx, cy, path_rgb), (step.index, cx, cy)
    # the map is a map: many colours, none covering nearly all of it; the path colour only along the path
    x0, y0 = int(box["x"]) + 2, int(box["y"]) + 2
    region = img[y0 : y0 + int(box["h"]) - 4, x0 : x0 + int(box["w"]) - 4].reshape(-1, 3)
    colours, counts = np.unique(region, axis=0, return_counts=True)
    assert len(colours) >= 5 and counts.max() / counts.sum() < 0.9, (
        len(colours),
        counts.max() / counts.sum(),
    )
    on_path = np.all(np.abs(region.astype(int) - path_rgb) <= 40, axis=-1).mean()
    assert 0 < on_path < 0.1


def test_episode_page_in_chromium(played: dict, browser, tmp_path: Path, capsys) -> None:  # noqa: ANN001
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    out = tmp_path / "pages"
    assert run_main(["view", str(played["run"]), "--out", str(out)]) == 0
    vanilla, _ = played["files"]["plains-1"]
    mirror, _ = played["files"]["plains-1/M02"]
    page = out / f"{mirror.episode_id}.html"
    listed = capsys.readouterr().out.split()
    assert str(page) in listed and str(out / f"{vanilla.episode_id}.html") in listed
    html = page.read_text()
    assert not re.search(r"""(src|href)=["']https?:""", html)  # self-contained: nothing fetched
    open_page(browser, page)
    assert console_errors(browser) == []
    panels = browser.find_elements(By.CSS_SELECTOR, "section.panel.episode")
    # the pair side by side: Vanilla left, Mirror right
    assert [p.get_attribute("data-episode") for p in panels] == [vanilla.episode_id, mirror.episode_id]
    assert panels[0].rect["x"] < panels[1].rect["x"] and abs(panels[0].rect["y"] - panels[1].rect["y"]) < 2
    # the Mirror timeline shows the rule encounter, both show the actions
    enc = panels[1].find_elements(By.CSS_SELECTOR, "svg.timeline .encounter")
    assert len(enc) == 1 and "M02.log_drops_four_planks" in enc[0].get_attribute("textContent")
    assert not panels[0].find_elements(By.CSS_SELECTOR, "svg.timeline .encounter")
    assert len(panels[1].find_elements(By.CSS_SELECTOR, "svg.timeline .action-tick")) == BUDGET
    browser.execute_script("window.scrollTo(0, 0)")
    img = screenshot(browser)
    for panel, rec in zip(panels, (vanilla, mirror), strict=True):
        _check_panel(browser, panel, rec, img)
    # hovering an action shows its outcome report (the one on top where actions share a position)
    tip = browser.find_element(By.ID, "tip")
    for circle in panels[1].find_elements(By.CSS_SELECTOR, "svg.map circle.action"):
        ActionChains(browser).move_to_element(circle).perform()
        WebDriverWait(browser, 5).until(lambda d: tip.is_displayed())
        r = rect_of(browser, circle)
        top = browser.execute_script(
            "return document.elementFromPoint(arguments[0], arguments[1]).getAttribute('data-index');",
            r["x"] + r["w"] / 2,
            r["y"] + r["h"] / 2,
        )
        step = mirror.trajectory[int(top) - 1]
        assert tip.get_attribute("textContent") == report_text(
            step.index, step.call, step.report, step.score_after
        )
        assert f"#{step.index} {step.call.name}" in tip.text
    assert console_errors(browser) == []


def test_report_page_in_chromium(played: dict, browser, capsys) -> None:  # noqa: ANN001
    from selenium.webdriver.common.by import By

    run = played["run"]
    assert run_main(["report", str(run), "--bootstrap", "50"]) == 0
    index = run / "report" / "index.html"
    assert str(index) in capsys.readouterr().out.split()
    open_page(browser, index)
    assert console_errors(browser) == []
    tables = browser.find_elements(By.CSS_SELECTOR, "table.report-table")
    assert {t.get_attribute("data-table") for t in tables} >= {
        "by_configuration",
        "by_suite",
        "irr_rl",
        "costs",
    }
    assert len(browser.find_elements(By.CSS_SELECTOR, "figure.plot img")) == 2  # the report's plots, inline
    # every episode linked, each link to a page written beside the index
    links = browser.find_elements(By.CSS_SELECTOR, "a.episode-link")
    ids = {rec.episode_id for rec, _ in played["files"].values()}
    assert {a.text for a in links} == ids
    for a in links:
        assert (run / "report" / a.get_attribute("href").rsplit("/", 1)[-1]).is_file()
    # sortable: a click on the score header orders the rows by score, a second click reverses them
    table = browser.find_element(By.CSS_SELECTOR, "table.episodes")

    def ids_in_order() -> list[str]:
        return [
            r.find_element(By.CSS_SELECTOR, "a").text
            for r in table.find_elements(By.CSS_SELECTOR, "tbody tr")
        ]

    header = table.find_elements(By.CSS_SELECTOR, "th")[0]
    header.click()
    first = ids_in_order()
    assert first == sorted(ids)
    header.click()
    assert ids_in_order() == first[::-1]
    # an episode page opened from the index loads clean too
    links[0].click()
    assert browser.find_elements(By.CSS_SELECTOR, "svg.map circle.action")
    assert console_errors(browser) == []


def test_view_usage_and_bad_input(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    assert run_main(["view", str(tmp_path / "missing")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert not (tmp_path / "pages").exists()
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 4, "episode_id": "ep-x"')
    assert run_main(["view", str(bad)]) == 1
    assert "not valid JSON" in capsys.readouterr().err
    bad.write_text('{"schema_version": 4, "episode_id": "ep-x"}')
    assert run_main(["view", str(bad)]) == 1
    assert "episode record ep-x" in capsys.readouterr().err
