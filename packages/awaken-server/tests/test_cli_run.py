"""``awaken run`` asks for approvals in a terminal and exits cleanly without one.

The offline demo model calls ``demo_approval`` for "approve …" prompts, which suspends until a
human decides. Real processes: the CLI in a subprocess with stdin on /dev/null, and with stdin
on a real pseudo-terminal answered through its master side.
"""

from __future__ import annotations

import io
import os
import pty
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from awaken_server.bootstrap import default_system_config
from awaken_server.terminal import EXIT_OK, EXIT_USAGE, EXIT_WAITING, run_once

CLI = [sys.executable, "-c", "import sys; from awaken.cli import main; sys.exit(main())"]


def offline_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.pop("LLM_BASE_URL", None)
    env.pop("AWAKEN_STORE_URL", None)
    return env


class Answers:
    """Scripted answers to the approval prompt; records the prompts shown."""

    def __init__(self, *answers: str) -> None:
        self.answers: Iterator[str] = iter(answers)
        self.prompts: list[str] = []

    async def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return next(self.answers)


async def test_approving_at_the_prompt_finishes_the_run(tmp_path: Path) -> None:
    out = io.StringIO()
    answers = Answers("maybe", "y")
    code = await run_once(
        default_system_config({}),
        "approve the deploy",
        store_url=f"sqlite:///{tmp_path / 'a.db'}",
        out=out,
        err=io.StringIO(),
        interactive=True,
        ask=answers,
    )
    text = out.getvalue()
    assert code == EXIT_OK, text
    assert "demo_approval needs your approval" in text
    assert 'arguments: {"action": "approve the deploy"}' in text
    assert "please answer y (approve) or n (deny)" in text  # "maybe" was asked again
    assert len(answers.prompts) == 2
    assert '{"decision":{"approved":true}}' in text
    assert text.rstrip().endswith("[natural_end]")


async def test_denying_cancels_the_call(tmp_path: Path) -> None:
    out = io.StringIO()
    code = await run_once(
        default_system_config({}),
        "approve the deploy",
        store_url=f"sqlite:///{tmp_path / 'd.db'}",
        out=out,
        err=io.StringIO(),
        interactive=True,
        ask=Answers("n"),
    )
    text = out.getvalue()
    assert code == EXIT_OK, text
    assert "[cancelled" in text or "denied at the terminal" in text
    assert '"approved":true' not in text


def test_without_a_terminal_it_exits_and_the_run_stays_resumable(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'cli.db'}"
    done = subprocess.run(
        [*CLI, "run", "approve x", "--store", store, "--thread", "t-cli"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=offline_env(),
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == EXIT_WAITING, done.stderr
    assert "[suspended]" in done.stdout
    assert "is waiting for a decision on demo_approval (call call_" in done.stderr
    assert "awaken run --thread t-cli" in done.stderr

    # The run is still waiting in the store: a terminal resumes it.
    with PtyCli([*CLI, "run", "--store", store, "--thread", "t-cli"], tmp_path) as cli:
        cli.expect("demo_approval needs your approval")
        cli.expect('arguments: {"action": "approve x"}')
        cli.expect("approve? [y/n]")
        cli.send("y\n")
        cli.expect("[natural_end]")
        assert cli.wait() == EXIT_OK


def test_a_terminal_is_asked_and_the_run_finishes(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'tty.db'}"
    with PtyCli([*CLI, "run", "approve it", "--store", store], tmp_path) as cli:
        cli.expect("approve? [y/n]")
        cli.send("y\n")
        cli.expect("[natural_end]")
        assert cli.wait() == EXIT_OK


async def test_resuming_a_thread_with_nothing_waiting_is_refused(tmp_path: Path) -> None:
    err = io.StringIO()
    code = await run_once(
        default_system_config({}),
        None,
        store_url=f"sqlite:///{tmp_path / 'n.db'}",
        thread_id="idle",
        out=io.StringIO(),
        err=err,
        interactive=True,
        ask=Answers(),
    )
    assert code == EXIT_USAGE
    assert "thread idle has no run waiting for a decision" in err.getvalue()


class PtyCli:
    """The CLI with stdin/stdout on a real pseudo-terminal."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=offline_env(), cwd=cwd
        )
        os.close(slave)
        self.seen = ""

    def __enter__(self) -> PtyCli:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)
        os.close(self.master)

    def expect(self, text: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in _plain(self.seen):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} never appeared; the terminal showed:\n{self.seen}")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:  # the child closed the terminal
                    chunk = b""
                if not chunk:
                    if text in _plain(self.seen):
                        return
                    raise AssertionError(f"{text!r} never appeared before exit:\n{self.seen}")
                self.seen += chunk.decode(errors="replace")

    def send(self, text: str) -> None:
        os.write(self.master, text.encode())

    def wait(self) -> int:
        return self.proc.wait(timeout=60)


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).replace("\r\n", "\n")


def test_serve_on_a_taken_port_fails_before_announcing(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [*CLI, "serve", "--store", "memory://", "--port", str(port)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env=offline_env(),
            cwd=tmp_path,
            timeout=60,
        )
    assert done.returncode == 1, done.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "awaken serving" not in done.stdout
