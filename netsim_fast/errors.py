"""Exceptions of netsim-fast. The library raises, never prints or exits; the CLI maps
``ConfigError`` to exit code 2 and ``SimulationError`` to exit code 1."""


class NetsimError(Exception):
    """Base class of every error netsim-fast raises on purpose."""


class ConfigError(NetsimError, ValueError):
    """Invalid user input: the message names the parameter, the value and what is allowed."""


class SimulationError(NetsimError, RuntimeError):
    """A run that could not finish (deadlock, watchdog, an invariant broken in debug mode)."""


class DeadlockError(SimulationError):
    """The deadlock watchdog fired; ``result`` holds the partial result of the run."""

    def __init__(self, message, result=None):
        super().__init__(message)
        self.result = result
