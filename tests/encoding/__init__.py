"""Tests of :mod:`durak.encoding`."""
