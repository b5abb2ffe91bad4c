"""Runtime extensions shipped with the runtime: agent handoff and local delegation."""
