"""Browser fixtures: a real ``awaken serve`` subprocess and headless Chromium under Selenium.

The server is the installed ``awaken`` command on a loopback port it binds itself (``--port 0``,
read back from its banner: no free-port probe another process could win) with a SQLite file
store, an API key and the offline demo model (every provider key is removed from its
environment). ``streaming_server`` embeds the app (:class:`ThreadedServer`, port 0) with a model
that streams reasoning and text in pieces, held at a gate the test opens. Chromium and
chromedriver come from the OS packages (Debian ``chromium`` + ``chromium-driver``); without them
the tests skip, except under ``CI`` where they fail. Each test gets a fresh browser profile and
leaves a screenshot ``<test name>.png`` in its ``tmp_path``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import (
    LlmStreamEvent,
    ReasoningDeltaChunk,
    StopChunk,
    StopReason,
    StreamResult,
    TextDeltaChunk,
)
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.testing.asgi import ThreadedServer
from awaken_server.app import AppState, ServerConfig, create_app
from awaken_server.playground import playground_routes
from awaken_stores import InMemoryStore
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.wait import WebDriverWait

API_KEY = "playground-test-key"
WAIT_SECS = 60.0
"""Generous: the CI machine is small and shared."""

_PROVIDER_ENV = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "DEEPSEEK_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "LLM_BASE_URL",
    "AWAKEN_STORE_URL",
    "AWAKEN_ADMIN_API_BEARER_TOKEN",
)
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,900",
)


def _find(env: str, *candidates: str) -> str | None:
    for name in (os.environ.get(env), *candidates):
        if name and (path := shutil.which(name)):
            return path
    return None


@dataclass(frozen=True)
class Chromium:
    """The system Chromium and its matching chromedriver."""

    binary: str
    driver: str


@pytest.fixture(scope="session")
def chromium() -> Chromium:
    binary = _find("CHROMIUM_BIN", "/usr/bin/chromium", "chromium", "chromium-browser")
    driver = _find("CHROMEDRIVER_BIN", "/usr/bin/chromedriver", "chromedriver")
    if binary is None or driver is None:
        message = "Chromium/chromedriver not installed (apt-get install chromium chromium-driver)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return Chromium(binary, driver)


@dataclass
class LiveServer:
    """A running ``awaken serve``."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path


_BANNER = re.compile(rb"awaken serving on (http://127\.0\.0\.1:\d+)")


def _wait_healthy(process: subprocess.Popen[bytes], log: Path, deadline_secs: float) -> str:
    """The URL ``awaken serve --port 0`` announces once it has bound its socket (so no other
    process can hold the port), after its ``/health/live`` answers."""
    deadline = time.monotonic() + deadline_secs
    last = "no banner yet"
    url: str | None = None
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"awaken serve exited: {log.read_text()[-2000:]}")
        if url is None and (found := _BANNER.search(log.read_bytes())) is not None:
            url = found.group(1).decode()
        if url is not None:
            try:
                if httpx.get(f"{url}/health/live", timeout=2).status_code == 200:
                    return url
            except httpx.HTTPError as exc:
                last = repr(exc)
        time.sleep(0.2)  # poll interval of a process we cannot get an event from
    raise AssertionError(f"awaken serve not healthy after {deadline_secs}s ({last})")


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """``awaken serve`` with SQLite, an API key and the demo model, for this module."""
    folder = tmp_path_factory.mktemp("awaken-serve")
    env = {k: v for k, v in os.environ.items() if k not in _PROVIDER_ENV}
    env["AWAKEN_API_KEYS"] = API_KEY
    command = Path(sys.executable).with_name("awaken")
    log = folder / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                str(command),
                "serve",
                "--store",
                f"sqlite:///{folder / 'awaken.db'}",
                "--port",
                "0",  # the OS picks a free port; the banner names it
                "--log-level",
                "warning",
            ],
            cwd=folder,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        yield LiveServer(_wait_healthy(process, log, WAIT_SECS), process, log)
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


@pytest.fixture
def browser(
    chromium: Chromium, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[WebDriver]:
    """A fresh headless Chromium; its screenshot is saved to ``tmp_path`` afterwards."""
    options = webdriver.ChromeOptions()
    options.binary_location = chromium.binary
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    driver = webdriver.Chrome(service=Service(chromium.driver), options=options)
    driver.set_page_load_timeout(WAIT_SECS)
    driver.set_script_timeout(WAIT_SECS)
    try:
        yield driver
    finally:
        shot = tmp_path / f"{request.node.name}.png"
        try:
            driver.save_screenshot(str(shot))
            print(f"screenshot: {shot}")
        finally:
            driver.quit()


Condition = Callable[[WebDriver], object]


def wait_for(
    driver: WebDriver, condition: Condition, what: str, timeout: float = WAIT_SECS
) -> object:
    """``WebDriverWait(...).until(condition)`` failing with ``what`` and the page's status line.

    An element re-rendered while the condition looks at it (stale) just means "look again"."""
    try:
        wait = WebDriverWait(
            driver,
            timeout,
            poll_frequency=0.2,
            ignored_exceptions=(StaleElementReferenceException,),
        )
        return wait.until(condition)
    except TimeoutException:
        status = driver.find_element(By.ID, "status").text
        message = f"timed out after {timeout}s waiting for {what} (status: {status!r})"
        raise AssertionError(message) from None


def text_in(css: str, needle: str) -> Condition:
    """Some element matching ``css`` contains ``needle``."""

    def check(driver: WebDriver) -> WebElement | bool:
        for element in driver.find_elements(By.CSS_SELECTOR, css):
            if needle in element.text:
                return element
        return False

    return check


def click(driver: WebDriver, css: str, what: str) -> None:
    """Click the first displayed element matching ``css``, finding it again if the page
    re-renders it between finding and clicking (lists refresh while runs stream)."""

    def clicked(d: WebDriver) -> bool:
        for element in d.find_elements(By.CSS_SELECTOR, css):
            if element.is_displayed():
                element.click()
                return True
        return False

    wait_for(driver, clicked, what)


def table_rows(driver: WebDriver, css: str) -> list[list[str]]:
    """Every row of ``css`` as ``[data-event-type, cell texts…]``, read in one script call (the
    table may re-render between two WebDriver calls)."""
    rows: list[list[str]] = driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(r =>"
        " [r.dataset.eventType || '', ...[...r.cells].map(c => c.textContent)]);",
        css,
    )
    return rows


def present(css: str) -> Condition:
    """The first displayed element matching ``css``."""

    def check(driver: WebDriver) -> WebElement | bool:
        for element in driver.find_elements(By.CSS_SELECTOR, css):
            if element.is_displayed():
                return element
        return False

    return check


class GatedStreamModel(LlmExecutor):
    """Streams reasoning and a first text piece, waits for the test to open ``gate``, then
    streams the rest: the page must show the first piece while the run is still going."""

    FIRST = "Thinking done. Here is part one"
    SECOND = " and part two."
    REASONING = "The user wants two parts."

    def __init__(self) -> None:
        self.gate = threading.Event()

    async def execute(self, request: InferenceRequest) -> StreamResult:
        raise NotImplementedError("the runtime streams")

    async def stream(self, request: InferenceRequest) -> AsyncIterator[LlmStreamEvent]:
        yield ReasoningDeltaChunk(self.REASONING)
        yield TextDeltaChunk(self.FIRST)
        opened = await asyncio.to_thread(self.gate.wait, WAIT_SECS)
        yield TextDeltaChunk(self.SECOND if opened else " (the test never opened the gate)")
        yield StopChunk(StopReason.END_TURN)

    def name(self) -> str:
        return "gated"


@dataclass
class EmbeddedServer:
    """The playground + native API on uvicorn in a background thread (no API key)."""

    url: str
    model: GatedStreamModel


@pytest.fixture(scope="module")
def streaming_server() -> Iterator[EmbeddedServer]:
    model = GatedStreamModel()
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("streamer").with_model("m"))
        .with_provider("gated", model)
        .with_model("m", ModelSpec(id="m", provider="gated", model="gated-1"))
        .build()
    )

    @contextlib.asynccontextmanager
    async def app() -> AsyncIterator[Any]:
        config = ServerConfig(address="127.0.0.1:0", default_agent_id="streamer")
        state = AppState.build(runtime, InMemoryStore(), config=config)
        yield create_app(state, extra_routes=playground_routes())

    # binds port 0 itself (no free-port probe another process could win) and waits until it
    # listens; uvicorn runs the app's lifespan (mailbox start/stop) on the server's loop
    server = ThreadedServer(app).start()
    try:
        yield EmbeddedServer(server.base_url, model)
    finally:
        model.gate.set()
        server.stop()
