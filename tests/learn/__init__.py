"""Tests of :mod:`durak.learn`."""
