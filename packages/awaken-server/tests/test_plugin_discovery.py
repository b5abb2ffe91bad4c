"""Plugins found through the ``awaken.plugins`` entry-point group and enabled from YAML."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path

import httpx
import pytest
from awaken_contract.errors import ConfigLoadError
from awaken_contract.registry_spec import AgentSpec, AgentSystemConfig, ModelSpec
from awaken_ext_permission import PermissionPlugin
from awaken_runtime.engine import ScriptedLlm, text_step
from awaken_runtime.testing.pytest_plugin import ServeAsgi
from awaken_server.app import ServerConfig
from awaken_server.bootstrap import build_runtime, setup_from_file
from awaken_server.plugin_discovery import PLUGIN_ENTRY_POINT_GROUP, discover_plugins
from awaken_server.serve import prepare_app
from awaken_stores import InMemoryStore

SITE = Path(__file__).parent / "data" / "third_party_site"

YAML = """
models:
  - id: m
    provider_id: scripted
    upstream_model: scripted-1
agents:
  - id: assistant
    model_id: m
    system_prompt: Be brief.
    plugin_ids: [hello]
    sections:
      hello:
        greeting: bonjour
"""


@pytest.fixture
def third_party_installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``awaken-hello-plugin`` installed as pip would leave it: a package and its
    ``.dist-info`` (with ``entry_points.txt``) on a ``sys.path`` entry."""
    monkeypatch.syspath_prepend(str(SITE))
    importlib.invalidate_caches()
    yield
    sys.modules.pop("awaken_hello_plugin", None)


def _point(name: str, value: str) -> EntryPoint:
    return EntryPoint(name=name, value=value, group=PLUGIN_ENTRY_POINT_GROUP)


def test_the_workspace_extensions_are_found_by_their_entry_points() -> None:
    catalog = discover_plugins()
    assert isinstance(catalog.plugins["permission"], PermissionPlugin)
    assert catalog.failures == {}


def test_a_third_party_plugin_is_found_only_through_its_entry_point(
    third_party_installed: None,
) -> None:
    assert "awaken_hello_plugin" not in sys.modules
    catalog = discover_plugins()
    plugin = catalog.plugins["hello"]
    assert type(plugin).__module__ == "awaken_hello_plugin"
    assert plugin.config_schemas()[0].key == "hello"


async def test_third_party_plugin_enabled_from_yaml_runs_its_hook_over_http(
    third_party_installed: None, tmp_path: Path, serve: ServeAsgi
) -> None:
    config = tmp_path / "awaken.yaml"
    config.write_text(YAML, encoding="utf-8")
    setup = setup_from_file(config)
    llm = ScriptedLlm([text_step("Salut.")])
    setup.executors["scripted"] = llm
    app, _ = await prepare_app(setup, InMemoryStore(), ServerConfig())
    url = await serve(app)
    body = {"agentId": "assistant", "messages": [{"role": "user", "content": "hi"}]}
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        response = await client.post("/v1/runs", json=body)
    assert response.status_code == 200, response.text
    assert '"delta":"Salut."' in response.text
    seen = [m.text() for m in llm.requests[0].messages]
    assert "third-party plugin says: bonjour" in seen


def test_unknown_plugin_id_is_a_clear_error_at_load(tmp_path: Path) -> None:
    config = tmp_path / "awaken.yaml"
    config.write_text(YAML, encoding="utf-8")
    setup = setup_from_file(config)
    with pytest.raises(ConfigLoadError) as err:
        build_runtime(setup.system, store=InMemoryStore(), executors={"scripted": ScriptedLlm([])})
    message = str(err.value)
    assert "agent 'assistant': unknown plugin id 'hello'" in message
    assert "permission" in message and "awaken.plugins" in message


async def test_config_api_rejects_an_agent_with_an_unknown_plugin_id(
    tmp_path: Path, serve: ServeAsgi
) -> None:
    config = tmp_path / "awaken.yaml"
    config.write_text(YAML.replace("plugin_ids: [hello]", "plugin_ids: []"), encoding="utf-8")
    setup = setup_from_file(config)
    setup.executors["scripted"] = ScriptedLlm([])
    app, _ = await prepare_app(setup, InMemoryStore(), ServerConfig())
    url = await serve(app)
    agent = {"id": "other", "model_id": "m", "plugin_ids": ["nope"]}
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        response = await client.post("/v1/config/agents", json=agent)
        listed = await client.get("/v1/config/agents")
    assert response.status_code == 400
    assert "unknown plugin id 'nope'" in response.json()["error"]
    assert listed.json()["items"] == []


def _system(*plugin_ids: str) -> AgentSystemConfig:
    return AgentSystemConfig(
        models=[ModelSpec(id="m", provider="scripted", model="s")],
        agents=[AgentSpec("a").with_model("m").model_copy(update={"plugin_ids": list(plugin_ids)})],
    )


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("awaken_no_such_module:Plugin", "No module named 'awaken_no_such_module'"),
        ("awaken_ext_permission:PERMISSION_PLUGIN_ID", "is not callable"),
        ("awaken_ext_permission:PermissionConfigKey", "not a Plugin"),
        ("awaken_ext_permission:PermissionPlugin", "is plugin 'permission', not 'broken'"),
    ],
)
def test_a_broken_plugin_is_left_out_with_its_reason(value: str, reason: str) -> None:
    catalog = discover_plugins([_point("broken", value)])
    assert "broken" not in catalog.plugins
    assert reason in catalog.failures["broken"]
    with pytest.raises(ConfigLoadError) as err:
        catalog.check_agents(_system("broken").agents)
    assert "agent 'a': plugin 'broken' failed to load: " in str(err.value)
    assert reason in str(err.value)


def test_two_packages_claiming_one_id_make_it_unavailable() -> None:
    catalog = discover_plugins(
        [
            _point("permission", "awaken_ext_permission:PermissionPlugin"),
            _point("permission", "awaken_hello_plugin:HelloPlugin"),
        ]
    )
    assert "permission" not in catalog.plugins
    assert "declared by both" in catalog.failures["permission"]


def test_programmatic_plugins_win_over_discovered_ones() -> None:
    mine = PermissionPlugin()
    catalog = discover_plugins([_point("permission", "awaken_no_such_module:X")])
    merged = catalog.with_plugins([mine])
    assert merged.plugins["permission"] is mine and merged.failures == {}
    merged.check_agents(_system("permission").agents)
