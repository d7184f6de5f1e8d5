"""The JSON Lines game log: its entries, its files (lock, append, read), replay and review."""
