"""The repetition record: the bout-start keys seen since the last irreversible event.

The repetition rule (``docs/rules.md``, "Termination") asks at every bout start "was this
key seen before?" and "remember it".

* :class:`History` is a persistent set that only grows: each value is a prefix of a shared,
  append-only list of keys, with a shared index from key to position.
* Extending the newest value is O(1) (a ``frozenset`` copied at each bout made a long
  passive game quadratic); extending an older value (search branching from a past state)
  copies its prefix once, and that copy becomes the tip of its own branch.
* Values are immutable to their users (their fields are private and never reassigned once
  made, the lazily cached hash aside), and compare and hash as the sets of keys they hold.
* :func:`deferred` makes a one-key set whose key is worked out when the set is first read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

#: A bout-start key for the repetition rule: roles, hand sizes and known-card masks.
PositionKey = tuple[int, ...]


class History:
    """An immutable set of :data:`PositionKey` values with O(1) :meth:`add` at the tip.

    * ``_keys``: the append-only list this value shares with its branch; it holds
      ``_keys[:_size]``.
    * ``_index``: key to position in ``_keys`` (shared with it); a key is in this set when
      its position is below ``_size``.
    * ``_hash``: the hash, worked out on first use; ``_make``: a deferred key's maker and
      arguments (:func:`deferred`), else ``None``.

    >>> h = History().add((1, 2)).add((3, 4))
    >>> (1, 2) in h, (5, 6) in h, len(h)
    (True, False, 2)
    >>> h == History([(3, 4), (1, 2)])
    True
    """

    __slots__ = ("_hash", "_index", "_keys", "_make", "_size")
    _keys: list[PositionKey]
    _index: dict[PositionKey, int]
    _size: int
    _hash: int | None
    _make: tuple[Any, ...] | None  # a deferred key's maker and arguments (see deferred)

    def __init__(self, keys: Iterable[PositionKey] = ()) -> None:
        unique = list(dict.fromkeys(keys))
        self._keys = unique
        self._index = {k: i for i, k in enumerate(unique)}
        self._size = len(unique)
        self._hash = None
        self._make = None

    @classmethod
    def single(cls, key: PositionKey) -> History:
        """The set ``{key}`` (a new epoch's record), without the general constructor's work."""
        return cls._view([key], {key: 0}, 1)

    @classmethod
    def _view(cls, keys: list[PositionKey], index: dict[PositionKey, int], size: int) -> History:
        h = object.__new__(cls)
        h._keys, h._index, h._size, h._hash, h._make = keys, index, size, None, None
        return h

    def add(self, key: PositionKey) -> History:
        """This set with ``key`` added (itself if ``key`` is already in it)."""
        index, size = self._index, self._size
        i = index.get(key)
        if i is not None and i < size:
            return self
        keys = self._keys
        if size == len(keys):
            keys.append(key)
            # Another thread may have extended the same tip first: then this slot is theirs.
            if keys[size] is key and index.setdefault(key, size) == size:
                return History._view(keys, index, size + 1)
        prefix = [*keys[:size], key]
        return History._view(prefix, {k: i for i, k in enumerate(prefix)}, size + 1)

    def __contains__(self, key: object) -> bool:
        i = self._index.get(key)  # type: ignore[call-overload]
        return i is not None and i < self._size

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[PositionKey]:
        return iter(self._keys[: self._size])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, History):
            return NotImplemented
        if self._size != other._size:
            return False
        return all(k in other for k in self)

    def __le__(self, other: History) -> bool:
        """Whether every key of this set is in ``other``."""
        return self._size <= other._size and all(k in other for k in self)

    def __lt__(self, other: History) -> bool:
        """A proper subset."""
        return self._size < other._size and self <= other

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self))
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        return (History, (tuple(self),))

    def __repr__(self) -> str:
        return f"History({list(self)!r})"


class _Deferred(History):
    """``History.single(make(*args))`` with the key worked out on first use.

    A new epoch starts at almost every bout end while the talon lasts, and its key is read
    only if the epoch reaches a second bout start; so :func:`deferred` stores the key's
    ingredients, and the first read of the set (membership, iteration, ``add``, equality,
    hash, repr, pickle) works the key out and makes the object a plain ``History`` (the
    same slots, so ``__class__`` may change): nothing outside sees the deferred form.
    """

    __slots__ = ()

    def add(self, key: PositionKey) -> History:
        return History.add(_settle(self), key)

    def __contains__(self, key: object) -> bool:
        return History.__contains__(_settle(self), key)

    def __iter__(self) -> Iterator[PositionKey]:
        return History.__iter__(_settle(self))

    def __eq__(self, other: object) -> bool:
        return History.__eq__(_settle(self), other)

    def __le__(self, other: History) -> bool:
        return History.__le__(_settle(self), other)

    def __lt__(self, other: History) -> bool:
        return History.__lt__(_settle(self), other)

    def __hash__(self) -> int:
        return History.__hash__(_settle(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return History.__reduce__(_settle(self))

    def __repr__(self) -> str:
        return History.__repr__(_settle(self))


def _settle(h: History) -> History:
    """``h`` made a plain :class:`History` (its key worked out).  Another thread may settle
    it at the same time: both store equal values, and ``_make`` stays readable."""
    if type(h) is _Deferred:
        make = h._make
        assert make is not None
        key = make[0](*make[1:])
        h._keys, h._index = [key], {key: 0}
        h.__class__ = History  # type: ignore[assignment]
    return h


_new = object.__new__


def deferred(make: Callable[..., PositionKey], *args: Any) -> History:
    """The set ``{make(*args)}``, equal to ``History.single(make(*args))``, with ``make``
    called only when the set is first read (``make`` must be a pure function)."""
    h = _new(_Deferred)
    h._make, h._size, h._hash = (make, *args), 1, None
    return h
