"""The tool-pattern DSL shared by permission and reminder extensions."""
