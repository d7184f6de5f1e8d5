"""Runs of many games and the backends that play them (this machine's pool, Ray)."""
