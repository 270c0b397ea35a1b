"""A real team episode's page in headless Chromium: four paths, both teams' score curves, hover reports.

The episode is played here: Mushroom War, the ``random`` system on both sides (so all four players act),
5 game seconds at 100 ticks/s on the embedded server with four real bodies (as tests/study/test_team_episode.py
plays it, on the shared ``arena_saves``). Its record carries each action's position (team schema 3); the page
(with the arena's terrain from its save, ``view --arenas``) must draw one circle per action per player, in that
player's colour, where the record says.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import pytest_twisted
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

from mirrorcraft.agents.teams import make_team_policy
from mirrorcraft.contracts.teams import TeamEpisodeIdentity, TeamSystem, read_team_record
from mirrorcraft.metrics.pages.episode import read_episode_file, report_text, write_episode_pages
from mirrorcraft.metrics.pages.svg import markers
from mirrorcraft.study.team_episode import run_team_episode

SECONDS = 5


@pytest_twisted.ensureDeferred
async def test_team_episode_page_in_chromium(arena_saves: Path, tmp_path: Path) -> None:
    problem = chromium_problem()
    if problem is not None:
        pytest.skip(f"headless Chromium unavailable: {problem}")
    identity = TeamEpisodeIdentity(
        scenario="mushroom_war", tested=TeamSystem(id="random"), opponent=TeamSystem(id="random"),
        tested_side="red", repeat=0, block_index=0, game_seconds=SECONDS,
    )  # fmt: skip
    policies = {side: make_team_policy(identity.system_of(side)) for side in ("red", "blue")}
    (tmp_path / "w").mkdir()
    record = await run_team_episode(
        identity, policies, arenas=arena_saves, workdir=tmp_path / "w", tick_rate=100
    )
    acted = [t for t in record.trajectories if t.actions]
    assert len(acted) == 4 and all(a.position is not None for t in acted for a in t.actions)
    # the record file the viewer reads is the team record as a study stores it
    rec_file = tmp_path / "team.json"
    rec_file.write_text(record.model_dump_json())
    episodes, teams = read_episode_file(rec_file)
    assert episodes == [] and teams == [read_team_record(record.model_dump_json())]
    [page] = write_episode_pages([], teams, tmp_path / "pages", arenas=arena_saves)  # the arena's terrain

    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with chromium() as driver:
        open_page(driver, page)
        assert console_errors(driver) == []
        svg = driver.find_element(By.CSS_SELECTOR, "svg.map")
        driver.execute_script("arguments[0].scrollIntoView()", svg)
        img = screenshot(driver)
        assert svg.find_elements(By.CSS_SELECTOR, "image.terrain")
        box = rect_of(driver, svg)
        region = img[
            int(box["y"]) + 2 : int(box["y"] + box["h"]) - 2, int(box["x"]) + 2 : int(box["x"] + box["w"]) - 2
        ]
        assert len(np.unique(region.reshape(-1, 3), axis=0)) >= 5  # grass, mushrooms, paths: not one colour
        for traj in record.trajectories:
            circles = svg.find_elements(By.CSS_SELECTOR, f'circle.action[data-player="{traj.player}"]')
            assert len(circles) == len(traj.actions)  # one point per action, per player
            colour = hex_rgb(markers()["team_paths"][traj.player])
            for c in circles:
                r = rect_of(driver, c)
                assert colour_near(img, r["x"] + r["w"] / 2, r["y"] + r["h"] / 2, colour), traj.player
        # both teams' score curves, ending at the outcome
        series = driver.find_elements(By.CSS_SELECTOR, "svg.scores polyline.series")
        assert [s.get_attribute("data-label") for s in series] == ["red", "blue"]
        # hover: the report of the action on top at that point
        tip = driver.find_element(By.ID, "tip")
        circle = svg.find_elements(By.CSS_SELECTOR, "circle.action")[-1]
        ActionChains(driver).move_to_element(circle).perform()
        WebDriverWait(driver, 5).until(lambda d: tip.is_displayed())
        r = rect_of(driver, circle)
        who, index = driver.execute_script(
            "const e = document.elementFromPoint(arguments[0], arguments[1]);"
            "return [e.getAttribute('data-player'), e.getAttribute('data-index')];",
            r["x"] + r["w"] / 2,
            r["y"] + r["h"] / 2,
        )
        traj = next(t for t in record.trajectories if t.player == who)
        a = traj.actions[int(index) - 1]
        expected = report_text(a.index, a.call, a.report, who=f"{traj.player} ({traj.side}) t={a.t:g}s")
        assert tip.get_attribute("textContent") == expected
        assert console_errors(driver) == []
