"""The package's version, on its own so that every layer may read it."""

__all__ = ["__version__"]

__version__ = "0.3.0.dev0"
