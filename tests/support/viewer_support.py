"""Helpers of the viewer tests (``tests/viewer``): headless Chromium through selenium, screenshots as arrays.

Chromium and its driver are Debian's ``chromium`` and ``chromium-driver`` (``scripts/setup.sh`` installs them
as root); where they cannot be installed the browser tests skip with the reason :func:`chromium_problem`
gives. Pages are opened from ``file://`` URLs: they are self-contained, so nothing else is served.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

#: The browser window (CSS pixels at device scale 1, so screenshot pixels are CSS pixels).
WINDOW = (1400, 1600)


def chromium_problem() -> str | None:
    """Why the browser tests cannot run here (None: they can)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]', or bash scripts/setup.sh)"
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        return "Debian's chromium is not installed (bash scripts/setup.sh installs it as root with apt-get)"
    if shutil.which("chromedriver") is None:
        return "Debian's chromium-driver is not installed (bash scripts/setup.sh installs it as root with apt-get)"
    return None


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium driven by selenium, with the browser console log kept (``get_log('browser')``)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        "--force-device-scale-factor=1",
        "--hide-scrollbars",
    ):
        opts.add_argument(arg)
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary:
        opts.binary_location = binary
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver: Any) -> list[dict[str, Any]]:
    """The browser console's SEVERE entries since the last call (JS errors, failed loads)."""
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def open_page(driver: Any, path: Path) -> None:
    driver.get(Path(path).resolve().as_uri())


def screenshot(driver: Any) -> np.ndarray:
    """The viewport as an (H, W, 3) uint8 array."""
    from matplotlib import image as mpimg

    png = driver.get_screenshot_as_png()
    img = mpimg.imread(io.BytesIO(png), format="png")
    if img.dtype != np.uint8:
        img = np.rint(img * 255).astype(np.uint8)
    return img[..., :3]


def hex_rgb(colour: str) -> np.ndarray:
    c = colour.lstrip("#")
    return np.array([int(c[i : i + 2], 16) for i in (0, 2, 4)], dtype=np.int32)


def colour_near(img: np.ndarray, x: float, y: float, rgb: np.ndarray, radius: int = 8, tol: int = 40) -> bool:
    """Whether a pixel within ``radius`` of viewport point ``(x, y)`` has colour ``rgb`` (± ``tol`` per channel)."""
    h, w = img.shape[:2]
    x0, x1 = max(0, int(x) - radius), min(w, int(x) + radius + 1)
    y0, y1 = max(0, int(y) - radius), min(h, int(y) + radius + 1)
    patch = img[y0:y1, x0:x1].astype(np.int32)
    return bool(np.any(np.all(np.abs(patch - rgb) <= tol, axis=-1)))


def rect_of(driver: Any, element: Any) -> dict[str, float]:
    """The element's bounding box in viewport CSS pixels."""
    return driver.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height};",
        element,
    )


#: Where :func:`records_dir_probe` writes what it saw (set by the test).
PROBE_FILE = "MC_TEST_PROBE_FILE"


def records_dir_probe(identity: Any) -> Any:
    """A synthetic episode (no game) that appends the ``MIRRORCRAFT_EPISODE_DIR`` its worker sees to the file
    named by :data:`PROBE_FILE`: how the study CLI's default runner is told where the run notes go."""
    import os

    from support.study_episode_fn import synthetic_episode

    with open(os.environ[PROBE_FILE], "a", encoding="utf-8") as fh:
        fh.write(os.environ.get("MIRRORCRAFT_EPISODE_DIR", "") + "\n")
    return synthetic_episode(identity)
