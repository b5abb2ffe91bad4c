"""A skills directory with good and bad skills, built fresh for every test."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest


def _skill(root: Path, dirname: str, skill_md: str | None) -> Path:
    directory = root / dirname
    directory.mkdir(parents=True)
    if skill_md is not None:
        (directory / "SKILL.md").write_text(textwrap.dedent(skill_md).lstrip("\n"))
    return directory


@pytest.fixture
def skills_root(tmp_path: Path) -> Path:
    """``skills/`` with three good skills and a set of broken ones; ``secret.txt`` sits next
    to the root (outside every skill)."""
    root = tmp_path / "skills"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("TOP SECRET")

    report = _skill(
        root,
        "data-report",
        """
        ---
        name: data-report
        description: Turn CSV files into a short findings report.
        allowed-tools: read_file web_search
        when-to-use: the user uploads tabular data
        arguments:
          - name: file
            description: CSV to analyse
            required: true
        argument-hint: "<file>"
        metadata:
          owner: analytics
        ---
        # Data report
        Read ${file} and summarise the three biggest changes.
        """,
    )
    (report / "references").mkdir()
    (report / "references" / "guide.md").write_text("Use medians, not means.")
    (report / "references" / "big.txt").write_text("x" * (300 * 1024))
    (report / "assets").mkdir()
    (report / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    (report / "scripts").mkdir()
    (report / "scripts" / "count.py").write_text(
        "import sys\nprint('args', len(sys.argv) - 1, *sys.argv[1:])\n"
        "print('warn', file=sys.stderr)\nsys.exit(0 if len(sys.argv) > 1 else 3)\n"
    )
    (report / "scripts" / "hello.sh").write_text("echo hello from $(basename $PWD)\n")
    (report / "scripts" / "tool.rb").write_text("puts 1\n")
    (report / "scripts" / "hang.sh").write_text("sleep 30\n")
    (report / "scripts" / "loud.py").write_text("print('y' * 40000)\n")
    # escape attempts planted inside the skill
    os.symlink(tmp_path / "secret.txt", report / "references" / "leak.md")
    os.symlink(tmp_path, report / "references" / "up")
    os.symlink(tmp_path / "secret.txt", report / "assets" / "leak.png")

    _skill(
        root,
        "git-helper",
        """
        ---
        name: git-helper
        description: Helps with git.
        allowed-tools: Bash(git status) read_file mcp__github__*
        ---
        Run git status before committing.
        """,
    )
    _skill(
        root,
        "internal-only",
        """
        ---
        name: internal-only
        description: Only the user may start this one.
        disable-model-invocation: true
        ---
        Internal steps.
        """,
    )
    _skill(
        root,
        "free-form",
        """
        ---
        name: free-form
        description: No tool restrictions.
        ---
        Anything goes.
        """,
    )

    # broken skills: each must produce a warning, never an exception
    _skill(root, "Upper-Case", "---\nname: upper-case\ndescription: d\n---\nbody\n")
    _skill(root, "no-skill-file", None)
    _skill(root, "no-frontmatter", "# Just a heading\n")
    _skill(root, "unterminated", "---\nname: unterminated\ndescription: d\n")
    _skill(root, "bad-yaml", "---\nname: bad-yaml\ndescription: [unclosed\n---\n")
    _skill(root, "no-description", "---\nname: no-description\n---\nbody\n")
    _skill(root, "mismatch", "---\nname: other-name\ndescription: d\n---\nbody\n")
    _skill(root, "bad-context", "---\nname: bad-context\ndescription: d\ncontext: remote\n---\n")
    _skill(
        root,
        "bad-tools",
        "---\nname: bad-tools\ndescription: d\nallowed-tools: Bash(git status\n---\n",
    )
    _skill(
        root,
        "bad-metadata",
        "---\nname: bad-metadata\ndescription: d\nmetadata:\n  n: 3\n---\n",
    )
    long_name = "a" * 65
    _skill(root, long_name, f"---\nname: {long_name}\ndescription: d\n---\n")
    # ignored silently
    _skill(root, ".hidden", "---\nname: hidden\ndescription: d\n---\n")
    (root / "README.txt").write_text("not a skill")
    os.symlink(report, root / "linked-skill")
    return root
