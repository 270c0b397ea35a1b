"""Tamper a copy of a run folder the way issue 22 did (figures in docs/reliability.md). NOT a test.

Usage (the default job's run folder, ``python -m mirrorcraft.run`` writes ``runs/demo``)::

    PYTHONPATH=$PWD python tests/support/tamper_run.py runs/demo /tmp/t-foreign foreign
    python -m mirrorcraft.run report /tmp/t-foreign --no-plots

Kinds: ``foreign`` (a valid M01 record of study seed 1 with the Vanilla episode's outcome, appended),
``temperature`` (the same with temperature 0.5 instead), ``conflict`` (a second valid record of the M01
episode with the Vanilla episode's outcome, placed first), ``identical`` (the M01 record appended again),
``badrule`` (the M02 record's first encounter renamed to a rule M02's manifest does not have).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

from mirrorcraft.contracts import EpisodeIdentity, read_record


def retarget(record: dict[str, Any], **identity: Any) -> str:
    """The record moved to another identity, with its id and seed recomputed: still a valid record."""
    rec = json.loads(json.dumps(record))
    rec["identity"].update(identity)
    ident = EpisodeIdentity.model_validate(rec["identity"])
    rec["episode_id"], rec["seed"] = ident.episode_id, ident.seed
    return read_record(rec).model_dump_json()


def tamper(src: Path, dst: Path, kind: str) -> Path:
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("worlds", "episodes", "report"))
    lines = (dst / "results.jsonl").read_text().splitlines()
    recs = [json.loads(line) for line in lines]
    van = next(r for r in recs if r["identity"]["suite"] is None)
    m01 = next(k for k, r in enumerate(recs) if r["identity"]["suite"] == "M01")
    if kind == "foreign":
        lines.append(retarget(van, suite="M01", study_seed=1))
    elif kind == "temperature":
        lines.append(retarget(van, suite="M01", model={**van["identity"]["model"], "temperature": 0.5}))
    elif kind == "conflict":
        lines.insert(0, retarget(van, suite="M01"))
    elif kind == "identical":
        lines.append(lines[m01])
    elif kind == "badrule":
        k = next(k for k, r in enumerate(recs) if r["identity"]["suite"] == "M02" and r["encounters"])
        recs[k]["encounters"][0]["rule_id"] = "M02.not_a_rule"
        lines[k] = json.dumps(recs[k])
    else:
        raise SystemExit(f"unknown kind {kind!r}")
    (dst / "results.jsonl").write_text("\n".join(lines) + "\n")
    return dst


if __name__ == "__main__":
    print(tamper(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]))
