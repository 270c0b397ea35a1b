"""``serve`` after a failed start, and the world copies it and killed workers leave (issue 22 part 3).

Each case runs the real command line in a child process with its own temporary folder (``TMPDIR``), so the
scratch folders (:mod:`mirrorcraft.worlds.copies`) it makes or leaves can be counted: one line on stderr, a
non-zero exit (2 for usage errors), no traceback, no hang, nothing left in the temporary folder.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mirrorcraft

REPO = Path(mirrorcraft.__file__).resolve().parents[1]


def _env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ, TMPDIR=str(tmp), PYTHONPATH=str(REPO))
    return env


def _serve(tmp: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mirrorcraft.run", "serve", *args],
        env=_env(tmp),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _copies(tmp: Path) -> list[Path]:
    root = tmp / "mirrorcraft-copies"
    return sorted(root.iterdir()) if root.is_dir() else []


@pytest.fixture
def busy_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    yield s.getsockname()[1]
    s.close()


def test_failed_starts_print_one_line_exit_non_zero_and_leave_no_copy(
    sandbox_template: Path, tmp_path: Path, busy_port: int
) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(sandbox_template, bad)
    (bad / "level.dat").write_bytes(b"garbage")
    world = str(sandbox_template)
    cases = [
        (["--world", "nowhere"], 2, "serve: unknown world 'nowhere'"),
        (["--world", world, "--port", "70000"], 2, "argument --port: 70000: expected a TCP port 0-65535"),
        (
            ["--world", world, "--port", str(busy_port)],
            1,
            f"serve: cannot listen on port 127.0.0.1:{busy_port}",
        ),
        (
            ["--world", world, "--port", "0", "--rcon-port", str(busy_port)],
            1,
            f"serve: cannot listen on the RCON port 127.0.0.1:{busy_port}",
        ),
        (
            ["--world", str(bad), "--port", "0"],
            1,
            f"serve: WorldError: {bad}/level.dat: not a gzip-compressed",
        ),
    ]
    for args, code, line in cases:
        t0 = time.monotonic()
        res = _serve(tmp_path, *args)
        assert res.returncode == code, (args, res.stderr)
        assert time.monotonic() - t0 < 30, args  # no hang
        errors = [ln for ln in res.stderr.splitlines() if ln.startswith("serve:") or "error:" in ln]
        assert len(errors) == 1 and line in errors[0], (args, res.stderr)
        assert "Traceback" not in res.stderr, res.stderr
        assert _copies(tmp_path) == [], args


def test_serve_removes_its_copy_on_exit_and_the_next_start_removes_a_killed_ones(
    sandbox_template: Path, tmp_path: Path, busy_port: int
) -> None:
    def start() -> subprocess.Popen:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mirrorcraft.run",
                "serve",
                "--world",
                str(sandbox_template),
                "--port",
                "0",
            ],
            env=_env(tmp_path),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        for line in proc.stdout:
            if line.startswith("MIRRORCRAFT_SERVER_PORT"):
                return proc
            assert time.monotonic() < deadline
        raise AssertionError(proc.stderr.read() if proc.stderr else "no port line")

    proc = start()
    assert len(_copies(tmp_path)) == 1
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    assert _copies(tmp_path) == []  # removed on exit

    killed = start()
    (left,) = _copies(tmp_path)
    killed.kill()  # SIGKILL: no cleanup possible
    killed.wait(timeout=30)
    assert left.is_dir() and (left / "world" / "level.dat").is_file()
    # the next start (even one that fails at once) sweeps the killed server's copy, and leaves nothing
    res = _serve(tmp_path, "--world", str(sandbox_template), "--port", str(busy_port))
    assert res.returncode == 1
    assert not left.exists() and _copies(tmp_path) == []
