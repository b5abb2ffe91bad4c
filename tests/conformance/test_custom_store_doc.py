"""docs/custom-store.md's example store really runs the conformance suite, with awaken-contract
as its only Awaken dependency."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "custom-store.md"


def _example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
    assert len(blocks) == 1, "the page holds exactly one runnable example"
    return blocks[0]


def test_example_depends_only_on_awaken_contract() -> None:
    imports = re.findall(r"^(?:from|import) (\w+)", _example(), flags=re.MULTILINE)
    awaken = {name for name in imports if name.startswith("awaken")}
    assert awaken == {"awaken_contract"}


def test_example_passes_the_suite(tmp_path: Path) -> None:
    test_file = tmp_path / "test_json_dict_store.py"
    test_file.write_text(_example())
    result = subprocess.run(
        [
            sys.executable, "-m", "pytest", str(test_file), "-q", "-p", "no:cacheprovider",
            "-o", "asyncio_mode=auto", "--rootdir", str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"\b\d{2,} passed\b", result.stdout), result.stdout
    assert "failed" not in result.stdout
