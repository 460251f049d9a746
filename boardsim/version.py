"""The package's version, in a module of its own so that any layer can record it without importing the
package's front door (``boardsim/__init__``, which sits above everything)."""

__version__ = "0.1.0"
