"""Tests of :mod:`durak.agents`."""
