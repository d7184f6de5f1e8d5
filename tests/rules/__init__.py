"""Tests of :mod:`durak.rules`."""
