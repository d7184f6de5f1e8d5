"""Tests of :mod:`durak.interop`."""
