"""Tests of :mod:`durak.search`."""
