"""The tests of durak: tests/<package>/ holds the tests of src/durak/<package>/ (see
docs/architecture.md, "Tests")."""
