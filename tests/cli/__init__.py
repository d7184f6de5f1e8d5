"""Tests of :mod:`durak.cli`."""
