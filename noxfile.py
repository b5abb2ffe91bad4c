"""Quality gates and test sessions. ``uv run nox`` runs the default set.

Sessions run inside the uv-managed workspace environment (``python=False``): ``uv run``
already put every workspace package and the dev group on the path, so nox creates no
virtualenvs of its own and a run stays fast on small CI machines.
"""

from __future__ import annotations

import glob
import re
import tempfile
import zipfile
from pathlib import Path

import nox

nox.options.default_venv_backend = "none"
nox.options.sessions = [
    "lint",
    "typecheck",
    "layers",
    "packaging",
    "tests",
    "conformance",
    "docs",
    "e2e",
    "browser",
]
nox.options.error_on_missing_interpreters = False

PACKAGE_SOURCES = sorted(glob.glob("packages/*/src"))
PACKAGE_TESTS = sorted(glob.glob("packages/*/tests"))


@nox.session(python=False)
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check over the whole tree."""
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python=False)
def typecheck(session: nox.Session) -> None:
    """mypy over every package (strict for awaken-contract, -runtime and -server, see pyproject)."""
    for src in PACKAGE_SOURCES:
        session.run("mypy", src)


@nox.session(python=False)
def layers(session: nox.Session) -> None:
    """import-linter contracts that encode DESIGN §2's layering rules."""
    session.run("lint-imports")


@nox.session(python=False)
def packaging(session: nox.Session) -> None:
    """Every distribution builds; awaken-contract installs with nothing but msgspec + pydantic."""
    with tempfile.TemporaryDirectory() as tmp:
        dist = Path(tmp) / "dist"
        session.run("uv", "build", "--all-packages", "--quiet", "-o", str(dist))
        built = {wheel.name.split("-")[0] for wheel in dist.glob("*.whl")}
        packages = {
            Path(p).parent.name.replace("-", "_") for p in glob.glob("packages/*/pyproject.toml")
        }
        missing = packages - built
        if missing:
            session.error(f"distributions without a wheel: {sorted(missing)}")
        server_wheel = next(dist.glob("awaken_server-*.whl"))
        with zipfile.ZipFile(server_wheel) as wheel:
            if "awaken_server/playground/static/index.html" not in wheel.namelist():
                session.error("the awaken-server wheel lacks the playground assets")
        venv = Path(tmp) / "venv"
        session.run("uv", "venv", "--quiet", str(venv))
        python = str(venv / "bin" / "python")
        contract = next(dist.glob("awaken_contract-*.whl"))
        session.run("uv", "pip", "install", "--quiet", "--python", python, str(contract))
        listing = session.run("uv", "pip", "freeze", "--python", python, silent=True)
        installed = {
            re.split(r"==| @ ", line)[0].strip().lower()
            for line in str(listing).splitlines()
            if "==" in line or " @ " in line
        }
        allowed = {
            "awaken-contract",
            "msgspec",
            "pydantic",
            "pydantic-core",
            "annotated-types",
            "typing-extensions",
            "typing-inspection",
        }
        extra = installed - allowed
        if extra:
            session.error(f"awaken-contract pulled in unexpected packages: {sorted(extra)}")
        session.run(python, "-c", "import awaken_contract.contract.tool, awaken_contract.state")


@nox.session(python=False)
def tests(session: nox.Session) -> None:
    """Unit and integration tests of every package."""
    session.run("pytest", *PACKAGE_TESTS, *session.posargs)


@nox.session(python=False)
def conformance(session: nox.Session) -> None:
    """The store conformance suite against memory, file, SQLite and PostgreSQL."""
    if not glob.glob("tests/conformance/test_*.py"):
        session.skip("no conformance tests yet")
    session.run("pytest", "tests/conformance", *session.posargs)


@nox.session(python=False)
def docs(session: nox.Session) -> None:
    """Run every example marked runnable in README.md and docs/, and examples/*.py."""
    session.run("pytest", "tests/docs", *session.posargs)


@nox.session(python=False)
def e2e(session: nox.Session) -> None:
    """Protocol end-to-end tests against a live loopback server with official clients."""
    if not glob.glob("tests/e2e/test_*.py"):
        session.skip("no e2e tests yet")
    session.run("pytest", "tests/e2e", *session.posargs)


@nox.session(python=False)
def browser(session: nox.Session) -> None:
    """The playground in headless Chromium (OS packages chromium + chromium-driver) via Selenium."""
    session.run("pytest", "tests/browser", *session.posargs)


@nox.session(python=False)
def bench(session: nox.Session) -> None:
    """Benchmarks of bench/ (printed ratios, never assertions)."""
    for script in sorted(glob.glob("bench/*.py")):
        if not script.endswith("__init__.py") and "/_" not in script:
            session.run("python", script, *session.posargs)
