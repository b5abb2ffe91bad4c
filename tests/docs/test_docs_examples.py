"""Every runnable example of the documentation really runs.

Convention (see docs/index.md, "Runnable examples"): an HTML comment on the line right before a
```` ```python ```` fence marks the block.

* ``<!-- run -->`` — the block is a complete program; it runs on its own.
* ``<!-- run: continue -->`` — the block continues the page's previous runnable block; the two
  (or more) run as one program.

Each program runs in a fresh subprocess, in an empty temporary directory, with a timeout. A
block may use top-level ``await`` (it is compiled with ``PyCF_ALLOW_TOP_LEVEL_AWAIT`` and driven
by ``asyncio.run``). Blocks that need network access or API keys are simply not marked.

The ``examples/*.py`` scripts run the same way, and the README quickstart must be the body of
``examples/quickstart.py``.
"""

from __future__ import annotations

import ast
import importlib
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_SECS = 120

RUN_MARK = re.compile(r"^<!--\s*run(?P<cont>\s*:\s*continue)?\s*-->\s*$")
FENCE_OPEN = re.compile(r"^```(?P<lang>[\w+-]*)\s*$")

# Compiles a file with top-level await allowed and runs it as ``__main__``.
DRIVER = """
import ast, asyncio, inspect, sys
path = sys.argv[1]
source = open(path, encoding="utf-8").read()
code = compile(source, path, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
sys.argv = [path]
namespace = {"__name__": "__main__", "__file__": path}
result = eval(code, namespace)
if inspect.iscoroutine(result):
    asyncio.run(result)
"""


@dataclass(frozen=True)
class Block:
    """One runnable python block of a page."""

    page: str  # path relative to the repository root
    number: int  # 1-based index among the page's python blocks
    line: int  # 1-based line of the opening fence
    code: str
    continues: bool


@dataclass(frozen=True)
class Program:
    """One or more blocks run together."""

    page: str
    blocks: tuple[Block, ...]

    @property
    def id(self) -> str:
        numbers = "+".join(str(block.number) for block in self.blocks)
        return f"{self.page}#block{numbers}"

    @property
    def source(self) -> str:
        return "\n".join(block.code for block in self.blocks)


def doc_pages() -> list[Path]:
    """README.md and every page under docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def parse_blocks(page: Path) -> tuple[list[Block], list[str]]:
    """The page's marked python blocks, and problems with misplaced markers."""
    return parse_markdown(page.read_text(encoding="utf-8"), page.relative_to(ROOT).as_posix())


def parse_markdown(text: str, rel: str) -> tuple[list[Block], list[str]]:
    """Marked python blocks of Markdown ``text`` (named ``rel`` in messages), and problems."""
    lines = text.splitlines()
    blocks: list[Block] = []
    problems: list[str] = []
    python_count = 0
    i = 0
    while i < len(lines):
        fence = FENCE_OPEN.match(lines[i])
        if fence is None:
            mark = RUN_MARK.match(lines[i])
            if mark is not None and (i + 1 >= len(lines) or not lines[i + 1].startswith("```")):
                problems.append(f"{rel}:{i + 1}: run marker not followed by a ```python fence")
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        if fence.group("lang") == "python":
            python_count += 1
            mark = RUN_MARK.match(lines[i - 1]) if i > 0 else None
            if mark is not None:
                code = "\n".join(lines[i + 1 : end]) + "\n"
                blocks.append(Block(rel, python_count, i + 1, code, bool(mark.group("cont"))))
        elif i > 0 and RUN_MARK.match(lines[i - 1]):
            problems.append(f"{rel}:{i}: run marker before a non-python fence")
        i = end + 1
    return blocks, problems


def join_blocks(blocks: list[Block]) -> list[Program]:
    """Programs of one page's blocks: a continuation block joins the program before it."""
    programs: list[Program] = []
    for block in blocks:
        if block.continues and programs:
            last = programs.pop()
            programs.append(Program(block.page, (*last.blocks, block)))
        else:
            programs.append(Program(block.page, (block,)))
    return programs


def collect_programs() -> list[Program]:
    """Runnable programs of every page."""
    return [program for page in doc_pages() for program in join_blocks(parse_blocks(page)[0])]


def run_python(path: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``path`` with the driver in a subprocess (the test's interpreter and environment)."""
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    return subprocess.run(
        [sys.executable, "-c", DRIVER, str(path)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECS,
        check=False,
    )


PROGRAMS = collect_programs()
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


SAMPLE = """# Page

<!-- run -->
```python
x = 1
```

```python
not_run = True
```

<!-- run: continue -->
```python
assert x == 1
```

<!-- run -->
```bash
echo no
```

<!-- run -->
Some text.

<!-- run -->
```python
y = 2
```
"""


def test_parser_follows_the_convention() -> None:
    blocks, problems = parse_markdown(SAMPLE, "sample.md")
    assert [(b.number, b.line, b.continues) for b in blocks] == [
        (1, 4, False),
        (3, 13, True),
        (4, 26, False),
    ]
    assert blocks[0].code == "x = 1\n"
    assert problems == [
        "sample.md:17: run marker before a non-python fence",
        "sample.md:22: run marker not followed by a ```python fence",
    ]
    programs = join_blocks(blocks)
    assert [p.id for p in programs] == ["sample.md#block1+3", "sample.md#block4"]
    assert programs[0].source == "x = 1\n\nassert x == 1\n"


def all_python_blocks() -> list[tuple[str, int, str]]:
    """(page, block number, code) of every python block, marked or not."""
    found = []
    for page in doc_pages():
        rel = page.relative_to(ROOT).as_posix()
        text = page.read_text(encoding="utf-8")
        for number, code in enumerate(re.findall(r"^```python\n(.*?)^```", text, re.M | re.S), 1):
            found.append((rel, number, code))
    return found


def awaken_imports(code: str) -> list[tuple[str, str | None]]:
    """``(module, name)`` of every ``awaken*`` import in ``code`` (fragments allowed)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:  # a fragment: parse its import statements alone
        statements = re.findall(
            r"^(from [\w.]+ import (?:\([^)]*\)|[^\n]+)|import [^\n]+)", code, re.M
        )
        tree = ast.parse("\n".join(statements))
    imports: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imports += [(node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            imports += [(alias.name, None) for alias in node.names]
    return [(module, name) for module, name in imports if module.split(".")[0].startswith("awaken")]


def test_imports_are_found_in_fragments() -> None:
    fragment = (
        "from awaken.stores import (\n    SqliteStore,\n)\nimport json\nx = (AgentSpec()\n    ...\n"
    )
    assert awaken_imports(fragment) == [("awaken.stores", "SqliteStore")]


def test_every_documented_import_exists() -> None:
    missing = []
    for page, number, code in all_python_blocks():
        for module_name, name in awaken_imports(code):
            try:
                module = importlib.import_module(module_name)
            except ImportError as exc:
                missing.append(f"{page}#block{number}: import {module_name}: {exc}")
                continue
            if name is not None and name != "*" and not hasattr(module, name):
                try:
                    importlib.import_module(f"{module_name}.{name}")
                except ImportError:
                    missing.append(f"{page}#block{number}: {module_name} has no {name}")
    assert missing == []


def test_markers_are_well_placed() -> None:
    problems = [problem for page in doc_pages() for problem in parse_blocks(page)[1]]
    assert problems == []


def test_pages_have_runnable_examples() -> None:
    pages = {program.page for program in PROGRAMS}
    for page in ("README.md", "docs/getting-started.md", "docs/hitl.md", "docs/configuration.md"):
        assert page in pages, f"{page} has no block marked <!-- run -->"


def test_first_block_of_a_page_does_not_continue() -> None:
    for program in PROGRAMS:
        assert not program.blocks[0].continues, (
            f"{program.id}: '<!-- run: continue -->' needs an earlier runnable block on the page"
        )


@pytest.mark.parametrize("program", PROGRAMS, ids=[program.id for program in PROGRAMS])
def test_doc_example_runs(program: Program, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(program.source, encoding="utf-8")
    try:
        result = run_python(script, tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{program.id} (line {program.blocks[0].line}) timed out")
    lines = ", ".join(str(block.line) for block in program.blocks)
    assert result.returncode == 0, (
        f"{program.id} (fence at line {lines}) failed with exit code {result.returncode}\n"
        f"--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
    )


@pytest.mark.parametrize("example", EXAMPLES, ids=[path.name for path in EXAMPLES])
def test_example_script_runs(example: Path, tmp_path: Path) -> None:
    try:
        result = run_python(example, tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail(f"examples/{example.name} timed out")
    assert result.returncode == 0, (
        f"examples/{example.name} failed with exit code {result.returncode}\n"
        f"--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
    )


def test_readme_quickstart_is_examples_quickstart() -> None:
    readme = [program for program in PROGRAMS if program.page == "README.md"]
    assert readme, "README.md has no runnable quickstart"
    quickstart = (ROOT / "examples" / "quickstart.py").read_text(encoding="utf-8")
    assert readme[0].source.strip() in quickstart, (
        "README.md's quickstart and examples/quickstart.py differ; keep them identical"
    )
