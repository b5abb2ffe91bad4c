"""The ``awaken`` command line: ``serve``, ``run``, ``eval``, ``replay`` and ``version``.

``awaken serve [--config awaken.yaml] [--store URL] [--host H] [--port P]`` starts the HTTP
server (SQLite at ``./.awaken/awaken.db`` by default). Without a config file it serves one agent
``assistant`` on the first provider key found in the environment, or on the clearly labelled
offline demo model. ``awaken run "prompt"`` streams one run to the terminal and asks for the
approvals it needs (see :mod:`awaken_server.terminal`). ``awaken replay RUN_ID [--store URL]
[--config FILE]`` re-runs a finished run against its journal: ``identical`` (exit 0) or the
first divergence (exit 1); a run that cannot be replayed exits 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from awaken_server.app import ServerConfig
    from awaken_server.bootstrap import ServeSetup

STORE_ENV = "AWAKEN_STORE_URL"


def _version() -> str:
    from importlib.metadata import version

    return version("awaken")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="awaken", description="Awaken agent runtime")
    sub = parser.add_subparsers(dest="command")
    serve = sub.add_parser("serve", help="run the HTTP server")
    serve.add_argument("--config", help="YAML/JSON file with agents, models, providers, server")
    serve.add_argument(
        "--store", help="sqlite:///path (default), postgres://…, file://dir, memory://"
    )
    serve.add_argument("--host", help="bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default 3000)")
    serve.add_argument("--log-level", default="info")
    serve.add_argument(
        "--log-format",
        choices=["text", "json"],
        default="text",
        help="log lines as text or one JSON object per line (both carry run/thread/agent ids)",
    )
    run = sub.add_parser(
        "run",
        help="stream one run to the terminal (asks for approvals; without a prompt, resumes "
        "the --thread's waiting run)",
    )
    run.add_argument("prompt", nargs="?")
    run.add_argument("--config")
    run.add_argument("--store", default=None, help="as for serve (default SQLite)")
    run.add_argument("--agent")
    run.add_argument("--thread", help="thread id (default: a new cli-… thread)")
    acp = sub.add_parser("acp", help="speak the Agent Client Protocol on stdin/stdout")
    acp.add_argument("--agent", help="agent id (default: 'default' or the only agent)")
    acp.add_argument("--config")
    acp.add_argument("--store", default=None, help="default memory://")
    mcp = sub.add_parser("mcp", help="serve the agents as MCP tools on stdin/stdout")
    mcp.add_argument("--config")
    mcp.add_argument("--store", default=None, help="default memory://")
    ev = sub.add_parser("eval", help="run an eval dataset, or export stored runs as one")
    ev.add_argument("dataset", nargs="?", help="dataset file (.yaml/.json) to run")
    ev.add_argument("--config", help="agents/models/providers file (default: env keys or demo)")
    ev.add_argument("--agent", help="agent id (default: the dataset's)")
    ev.add_argument("--concurrency", type=int, help="cases at once (default: the dataset's)")
    ev.add_argument("--threshold", type=float, help="pass-rate threshold 0..1 (exit 1 below)")
    ev.add_argument("--json", dest="json_path", help="write the report as JSON here")
    ev.add_argument("--junit", dest="junit_path", help="write a JUnit XML report here")
    ev.add_argument("--from-store", dest="from_store", help="store URL to export runs from")
    ev.add_argument("--thread", help="thread id whose finished runs become cases")
    ev.add_argument("--run", dest="run_id", help="only this run of the thread")
    ev.add_argument("-o", "--output", help="dataset file to write (with --from-store)")
    rp = sub.add_parser(
        "replay", help="re-run a finished run against its journal and compare the events"
    )
    rp.add_argument("run_id", help="the run to replay")
    rp.add_argument("--store", help="as for serve (default: serve's SQLite, .awaken/awaken.db)")
    rp.add_argument("--config", help="the agents file the run was served with (default: as serve)")
    sub.add_parser("version", help="print the version")
    return parser


def _setup(config_path: str | None) -> tuple[ServeSetup, ServerConfig]:
    from awaken_server.app import ServerConfig
    from awaken_server.bootstrap import default_system_config, setup_from_file

    if config_path:
        setup = setup_from_file(config_path)
        server = setup.server
        if "address" not in server.model_fields_set:
            server = server.model_copy(update={"address": "127.0.0.1:3000"})
        return setup, server
    setup = default_system_config()
    return setup, ServerConfig(address="127.0.0.1:3000")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``awaken`` command."""
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    if args.command == "version":
        print(f"awaken {_version()}")
        return 0
    if args.command == "acp":
        from awaken_server.protocols.acp import acp_main

        return acp_main(args.config, args.store, args.agent)
    if args.command == "mcp":
        from awaken_server.protocols.mcp_http import mcp_main

        return mcp_main(args.config, args.store)
    if args.command == "eval":
        return _eval(args)
    if args.command == "replay":
        return _replay(args)
    if args.command not in ("serve", "run"):
        _parser().print_help(sys.stderr)
        return 2
    try:
        from awaken_server.serve import configure_logging, run_once, run_sync, serve
    except ImportError:
        print(
            "awaken serve/run need the server extra: pip install 'awaken[server]'", file=sys.stderr
        )
        return 2
    from awaken_contract.errors import AwakenError

    try:
        setup, server = _setup(args.config)
        if args.command == "run":
            store = args.store or os.environ.get(STORE_ENV)
            coro = run_once(
                setup, args.prompt, store_url=store, agent_id=args.agent, thread_id=args.thread
            )
            return int(run_sync(coro))
        host, port = server.host_port()
        host = args.host or host
        port = port if args.port is None else args.port  # ``--port 0``: the OS picks one
        server = server.model_copy(update={"address": f"{host}:{port}"})
        configure_logging(args.log_level, args.log_format)
        store_url = args.store or os.environ.get(STORE_ENV)
        run_sync(serve(setup, store_url=store_url, server=server, log_level=args.log_level))
        return 0
    except AwakenError as exc:
        print(f"awaken: {exc}", file=sys.stderr)
        return 1


def _eval(args: argparse.Namespace) -> int:
    """``awaken eval DATASET.yaml`` runs an eval dataset against the agents ``serve`` would
    serve (exit 1 below its threshold, 2 for bad input); ``awaken eval --from-store URL
    --thread ID -o dataset.yaml`` turns stored runs into cases (see docs/evals.md)."""
    from awaken_contract.errors import AwakenError

    try:
        from awaken_server.bootstrap import build_runtime, open_store
        from awaken_server.serve import run_sync
    except ImportError:
        print("awaken eval needs the server extra: pip install 'awaken[server]'", file=sys.stderr)
        return 2
    from awaken_runtime.evals import cli as evals

    async def export() -> int:
        store = open_store(args.from_store)
        try:
            return await evals.export(store, args.thread, args.output, run_id=args.run_id)
        finally:
            await _close(store)

    async def evaluate() -> int:
        setup, _ = _setup(args.config)
        store = open_store("memory://")
        try:
            runtime = build_runtime(
                setup.system, store=store, executors=setup.executors, tools=setup.tools
            )
            return await evals.evaluate(
                args.dataset,
                runtime,
                agent_id=args.agent,
                concurrency=args.concurrency,
                threshold=args.threshold,
                json_path=args.json_path,
                junit_path=args.junit_path,
            )
        finally:
            await _close(store)

    try:
        if args.from_store:
            if not args.thread or not args.output:
                print("awaken eval --from-store needs --thread and -o FILE", file=sys.stderr)
                return 2
            return int(run_sync(export()))
        if not args.dataset:
            print("awaken eval: give a DATASET file (or --from-store)", file=sys.stderr)
            return 2
        return int(run_sync(evaluate()))
    except AwakenError as exc:
        print(f"awaken eval: {exc}", file=sys.stderr)
        return 2


def _replay(args: argparse.Namespace) -> int:
    """``awaken replay RUN_ID``: replay a finished run with the agents ``serve`` would serve
    (built exactly as ``serve`` builds them; no model call, no tool, no write); print
    ``identical`` (0) or the first divergence (1). An unknown, unfinished or unreplayable run
    exits 2. See docs/durability.md, "Replay"."""
    from awaken_contract.errors import AwakenError

    try:
        from awaken_server.bootstrap import open_store
        from awaken_server.serve import run_sync, served_runtime
    except ImportError:
        print("awaken replay needs the server extra: pip install 'awaken[server]'", file=sys.stderr)
        return 2
    from awaken_runtime.replay import replay_run

    async def replay() -> int:
        setup, server = _setup(args.config)
        store = open_store(args.store or os.environ.get(STORE_ENV))
        try:
            async with served_runtime(setup, store, server) as runtime:
                report = await replay_run(runtime, store, args.run_id)
        finally:
            await _close(store)
        print(report.describe())
        return 0 if report.identical else 1

    try:
        return int(run_sync(replay()))
    except AwakenError as exc:
        print(f"awaken replay: {exc}", file=sys.stderr)
        return 2


async def _close(store: object) -> None:
    close = getattr(store, "close", None)
    if close is not None:
        await close()
