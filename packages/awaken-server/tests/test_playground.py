"""The playground's static pages: served by ``prepare_app`` (``awaken serve``), same-origin only,
public (no API key needed for the page itself) and shipped inside the awaken-server wheel."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from awaken_server.playground import ASSETS_PATH, static_dir
from awaken_server.testing import LiveServer
from awaken_server.testing import test_server_config as make_config

ASSETS = ("index.html", "app.js", "api.js", "playground.css")
ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("path", ["/", "/playground", "/playground/"])
async def test_page_is_served_at_root_and_playground(live: LiveServer, path: str) -> None:
    response = await live.client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "<title>Awaken playground</title>" in response.text
    csp = response.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "connect-src 'self'" in csp
    assert response.headers["x-content-type-options"] == "nosniff"


async def test_assets_are_served_with_module_types(live: LiveServer) -> None:
    js = await live.client.get(f"{ASSETS_PATH}/app.js")
    assert js.status_code == 200
    assert "javascript" in js.headers["content-type"]
    assert js.headers["content-security-policy"].startswith("default-src 'self'")
    css = await live.client.get(f"{ASSETS_PATH}/playground.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert (await live.client.get(f"{ASSETS_PATH}/missing.js")).status_code == 404
    assert (await live.client.get(f"{ASSETS_PATH}/../__init__.py")).status_code == 404


async def test_page_is_public_but_the_api_needs_the_key(make_server) -> None:
    live = await make_server(config=make_config(api_keys=["k1"]))
    assert (await live.client.get("/playground")).status_code == 200
    assert (await live.client.get(f"{ASSETS_PATH}/api.js")).status_code == 200
    assert (await live.client.get("/v1/threads")).status_code == 401
    ok = await live.client.get("/v1/threads", headers={"Authorization": "Bearer k1"})
    assert ok.status_code == 200


def test_assets_load_nothing_from_other_origins() -> None:
    """No CDN: every URL the page or its modules reference is a same-origin path."""
    for name in ASSETS:
        text = (static_dir() / name).read_text()
        assert not re.search(r"https?://", text), f"{name} references another origin"
    index = (static_dir() / "index.html").read_text()
    for ref in re.findall(r'(?:src|href)="(/playground/assets/[^"]+)"', index):
        assert (static_dir() / ref.removeprefix(f"{ASSETS_PATH}/")).is_file(), ref
    for module in ("app.js", "api.js"):
        for ref in re.findall(r'from "\./([^"]+)"', (static_dir() / module).read_text()):
            assert (static_dir() / ref).is_file(), f"{module} imports missing {ref}"


def test_the_wheel_ships_the_assets(tmp_path: Path) -> None:
    uv = shutil.which("uv")
    if uv is None:
        if os.environ.get("CI"):
            pytest.fail("uv is needed to build the wheel")
        pytest.skip("uv not on PATH")
    subprocess.run(
        [uv, "build", "--package", "awaken-server", "--wheel", "--quiet", "-o", str(tmp_path)],
        cwd=ROOT,
        check=True,
    )
    wheel = next(tmp_path.glob("awaken_server-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for asset in ASSETS:
        assert f"awaken_server/playground/static/{asset}" in names, asset
