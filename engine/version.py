"""The engine's version: one place that the package, its answers and the wheel's metadata read."""

__version__ = "0.1.0"
