"""Tests of :mod:`durak.envs`."""
