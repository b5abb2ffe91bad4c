"""Skills subsystem: discover, activate and load SKILL.md skill packages."""
