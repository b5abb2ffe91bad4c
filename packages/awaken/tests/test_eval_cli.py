"""``awaken eval`` as a real subprocess: the example dataset on the demo model, the threshold
exit status, report files, bad input, and export from a stored thread (SQLite)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "evals" / "demo.yaml"
_PROVIDER_ENV = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "DEEPSEEK_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "LLM_BASE_URL",
)


def awaken(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in _PROVIDER_ENV}
    command = [str(Path(sys.executable).with_name("awaken")), *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_example_dataset_passes_offline(tmp_path: Path) -> None:
    done = awaken("eval", str(EXAMPLE), "--json", "r.json", "--junit", "r.xml", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5/5 passed (100%)" in done.stdout
    assert "[5/5]" in done.stderr  # progress
    report = json.loads((tmp_path / "r.json").read_text())
    assert (report["dataset"], report["passed"], report["ok"]) == ("demo-agent", 5, True)
    suite = ET.parse(tmp_path / "r.xml").getroot()
    assert suite.get("tests") == "5" and suite.get("failures") == "0"


def test_exit_status_is_one_below_the_threshold(tmp_path: Path) -> None:
    dataset = tmp_path / "d.yaml"
    dataset.write_text(
        "name: t\nthreshold: 0.5\ncases:\n"
        "  - {id: ok, input: 'weather in Paris', expected: {tool_calls: [{name: get_weather}]}}\n"
        "  - {id: bad, input: 'weather in Paris', expected: {tool_calls: [{name: word_count}]}}\n"
        "  - {id: bad2, input: 'hi', scorers: [{type: contains, value: 'nowhere'}]}\n"
    )
    done = awaken("eval", str(dataset), "--junit", "r.xml", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1/3 passed" in done.stdout and "BELOW THRESHOLD" in done.stdout
    assert ET.parse(tmp_path / "r.xml").getroot().get("failures") == "2"
    lowered = awaken("eval", str(dataset), "--threshold", "0.3", cwd=tmp_path)
    assert lowered.returncode == 0, lowered.stdout


def test_bad_dataset_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("cases: [{id: a, input: x, scorers: [{type: nope}]}]\n")
    done = awaken("eval", "bad.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert "invalid eval dataset" in done.stderr and "Traceback" not in done.stderr
    missing = awaken("eval", "--from-store", "memory://", cwd=tmp_path)
    assert missing.returncode == 2 and "--thread" in missing.stderr


def test_export_a_stored_thread_and_replay_it(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'a.db'}"
    for prompt in ("weather in Lisbon", "count three words please"):
        ran = awaken("run", prompt, "--store", store, "--thread", "t-export", cwd=tmp_path)
        assert ran.returncode == 0, ran.stdout + ran.stderr
    out = awaken(
        "eval", "--from-store", store, "--thread", "t-export", "-o", "ds.yaml", cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert "wrote 2 case(s)" in out.stdout
    text = (tmp_path / "ds.yaml").read_text()
    assert "get_weather" in text and "Lisbon" in text and "word_count" in text
    replay = awaken("eval", "ds.yaml", cwd=tmp_path)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "2/2 passed" in replay.stdout
    unknown = awaken(
        "eval", "--from-store", store, "--thread", "nope", "-o", "x.yaml", cwd=tmp_path
    )
    assert unknown.returncode == 2 and "thread not found: nope" in unknown.stderr
