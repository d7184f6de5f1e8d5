"""Checks of the repository as a whole: the docs' blocks, the layers, the README's layout, the
cost budget, each install extra, the hang timeout and the mutation tool."""
