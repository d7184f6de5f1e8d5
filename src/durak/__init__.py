"""durak: a correct, fast rules engine, search library and agents for the card game Durak."""

#: The version of the distribution ``durak-lab``; ``pyproject.toml`` reads it from here.
__version__ = "0.2.0"
