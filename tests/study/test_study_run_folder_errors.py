"""A full disk and a read-only run folder give one line naming the path and what to do; data stays safe.

The file systems are real: a 32 KB tmpfs (ENOSPC) and a read-only tmpfs (EROFS), mounted inside a private
mount namespace (``unshare -m``) of a child process, so the mounts exist only for that process and vanish
with it: nothing is left mounted on the machine, whatever happens to the test. Where the namespace is not
available (no ``unshare`` or no CAP_SYS_ADMIN) the tests are skipped, and a non-root user gets the
classic ``chmod`` read-only folder instead (root ignores permission bits, so chmod proves nothing as root).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mirrorcraft.contracts import ModelSettings, StudyGrid
from mirrorcraft.metrics.results import RunFolderError
from mirrorcraft.study import run_study

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parents[1]  # tests/: the support package (support.study_episode_fn)
GRID = StudyGrid(
    name="disk",
    worlds=["plains-1", "taiga-1"],
    tasks=["diamond"],
    models=[ModelSettings(name="model-a")],
    configurations=["react"],
    repetitions=3,
    suites=["M01", "M02"],
    disclosed_configurations=[],
)

DRIVER = textwrap.dedent(
    """
    import json, os, subprocess, sys
    from pathlib import Path
    from support.study_episode_fn import synthetic_episode
    from mirrorcraft.contracts import StudyGrid
    from mirrorcraft.metrics.reporting import report
    from mirrorcraft.metrics.results import RunFolderError, scan_results
    from mirrorcraft.study import run_study

    mnt, grid_json = Path(sys.argv[1]), sys.argv[2]
    grid = StudyGrid.model_validate_json(grid_json)
    run = mnt / "run"
    out = {}

    def mount(opts):
        subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(mnt)], check=True)

    def attempt(key, fn):
        try:
            fn()
            out[key] = "ok"
        except RunFolderError as err:
            out[key] = str(err)

    mount("size=32k")
    attempt("full", lambda: run_study(run, grid, synthetic_episode, progress=False))
    scan = scan_results(run / "results.jsonl")
    out["kept_after_full"] = len(scan.final())
    out["bad_after_full"] = [str(b) for b in scan.bad_lines]
    subprocess.run(["mount", "-o", "remount,size=4m", str(mnt)], check=True)
    attempt("resume", lambda: run_study(run, grid, synthetic_episode, resume=True, progress=False))
    scan = scan_results(run / "results.jsonl")
    out["kept_after_resume"] = len(scan.final())
    out["duplicates"] = len(scan.duplicates) + len(scan.conflicts)
    attempt("report", lambda: report(run, n_boot=20, plots=False))
    st = os.statvfs(mnt)  # leave 8 KB free: enough to start the new report, not for its figures
    used = (st.f_blocks - st.f_bfree) * st.f_frsize
    subprocess.run(["mount", "-o", f"remount,size={used + 8192}", str(mnt)], check=True)
    attempt("report_full", lambda: report(run, n_boot=20, plots=True))
    out["report_intact"] = sorted(p.name for p in (run / "report").iterdir())
    out["staging_left"] = sorted(p.name for p in run.glob(".report-*"))
    subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
    attempt("report_ro", lambda: report(run, n_boot=20, plots=False))
    attempt("study_ro", lambda: run_study(mnt / "other", grid, synthetic_episode, progress=False))
    cli = subprocess.run(
        [sys.executable, "-m", "mirrorcraft.run", "study", "smoke", "--run-dir", str(mnt / "cli"),
         "--episode-fn", "support.study_episode_fn:synthetic_episode", "--no-progress"],
        capture_output=True, text=True,
    )
    out["cli"] = [cli.returncode, cli.stderr]
    print(json.dumps(out))
    """
)


def _namespace_ok() -> bool:
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=4k tmpfs /mnt && umount /mnt"],
        capture_output=True,
    )
    return probe.returncode == 0


@pytest.mark.skipif(
    not _namespace_ok(), reason="needs unshare -m and mount (CAP_SYS_ADMIN) for a real small fs"
)
def test_full_disk_and_read_only_folder_on_real_small_file_systems(tmp_path: Path):
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(HERE)]))
    proc = subprocess.run(
        ["unshare", "-m", sys.executable, "-c", DRIVER, str(mnt), GRID.model_dump_json()],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    run = mnt / "run"

    # Full disk during a study: one line naming the results file and what to do; every complete record kept.
    assert out["full"].startswith(f"{run / 'results.jsonl'}: no space left on the device (ENOSPC)")
    assert "rerun with --resume" in out["full"] and "\n" not in out["full"]
    assert 0 < out["kept_after_full"] < GRID.size()
    assert all("partial last line" in b for b in out["bad_after_full"])  # at most the cut line, ignored
    # After freeing space, --resume completes the grid without duplicating an episode.
    assert out["resume"] == "ok" and out["kept_after_resume"] == GRID.size() and out["duplicates"] == 0
    assert out["report"] == "ok"
    # The report runs out of space while writing its PNGs: one line; the previous report stays whole.
    assert (
        out["report_full"].startswith(f"{run}")
        and "no space left on the device (ENOSPC)" in out["report_full"]
    )
    assert "the previous report/ is unchanged" in out["report_full"]
    assert "report.md" in out["report_intact"] and "rie_by_suite.png" not in out["report_intact"]
    assert out["staging_left"] == []
    # Read-only: the report and a new study say so in one line, naming the path.
    assert out["report_ro"].startswith(f"{run / 'report'}: not writable (EROFS")
    assert out["study_ro"].startswith(f"{mnt / 'other'}") and "not writable (EROFS" in out["study_ro"]
    code, err = out["cli"]
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"study: {mnt / 'cli'}") and "not writable (EROFS" in err
    assert not any(mnt.iterdir())  # the mounts lived only in the child's namespace


@pytest.mark.skipif(
    os.geteuid() == 0, reason="root ignores permission bits; the read-only mount test covers root"
)
def test_chmod_read_only_run_folder(tmp_path: Path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(RunFolderError, match=r"not writable \(EACCES") as info:
            run_study(ro / "run", GRID, lambda i: None, progress=False)
        assert str(info.value).startswith(str(ro / "run"))
    finally:
        ro.chmod(0o755)
