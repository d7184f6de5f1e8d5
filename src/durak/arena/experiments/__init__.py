"""Experiments over many matches: round robins, grid search, their reports, speed."""
