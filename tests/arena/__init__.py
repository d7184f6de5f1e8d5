"""Tests of :mod:`durak.arena`."""
