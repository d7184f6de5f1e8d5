"""Tests of :mod:`durak.testing`."""
