"""durak: a correct, fast rules engine, search library and agents for the card game Durak."""

__version__ = "0.1.0"
