"""The package version, in its own ground-floor module so that anything (the trace writer, the
sweep metadata) can stamp it without importing the package root and its lazy public API."""

__version__ = "0.1.0"
