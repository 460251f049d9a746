"""The one exception type for bad user input."""

from __future__ import annotations


class BadInput(ValueError):
    """A scenario, card file, option or flag the user got wrong.

    ``key`` names the offending key (``rules.bid_ceiling``, ``seats[1].policy``);
    the message says what is allowed.  The CLI prints
    ``error: <file>: <key>: <message>`` and exits with status 2.
    """

    def __init__(self, key: str, message: str, file: str | None = None):
        self.key = key
        self.message = message
        self.file = file
        super().__init__(self.line())

    def line(self) -> str:
        """``<file>: <key>: <message>``, always printable text: a file name holding bytes that are no UTF-8
        (Python keeps them as lone surrogates) shows them as ``\\udce9`` escapes rather than failing to print."""
        parts = [str(p) for p in (self.file, self.key) if p]
        text = ": ".join(parts + [self.message])
        return text.encode("utf-8", "backslashreplace").decode("utf-8")

    def in_file(self, file: str) -> BadInput:
        """The same error, now naming the file it came from."""
        return BadInput(self.key, self.message, file)

    def under(self, prefix: str) -> BadInput:
        """The same error with its key nested under ``prefix``."""
        key = f"{prefix}.{self.key}" if self.key else prefix
        return BadInput(key, self.message, self.file)


class ClusterLost(RuntimeError):
    """The workers or the scheduler that a run depends on went away mid-run.

    Not the user's input: the message says what was lost and how to resume.  The
    CLI prints it as one line ``error: <message>`` and exits with status 1.
    """


class BadParameter(BadInput):
    """A bad argument of a Python API function: ``key`` is the parameter's name (``workers``,
    ``threads``, ``out``...).  The CLI prints it under the flag that carries it (``--workers``), in one
    place (``cli.as_flag``); everywhere else it is a BadInput like any other.  ``in_file`` and ``under``
    give a plain BadInput: a key nested in a file or under another key names no parameter any more."""
