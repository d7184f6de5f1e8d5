"""Tests of :mod:`durak.web`."""
