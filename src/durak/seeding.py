"""Seeds for sub-streams of one master seed, the same in every process and on every host.

A run, a training job or an environment derives every seed it needs (a deal, an agent's
generator, a worker's episodes) from its one master seed with :func:`derive_seed`, so
results depend on the seed and the index of the work, never on which process did it.  The
mixing function is SplitMix64's (Steele, Lea & Flood, "Fast splittable pseudorandom number
generators", OOPSLA 2014), a bijection on 64-bit integers that scatters nearby inputs.

>>> derive_seed(1, 2) == derive_seed(1, 2) != derive_seed(1, 3)
True
"""

from __future__ import annotations

_MASK64 = (1 << 64) - 1


def _mix(x: int) -> int:
    """The SplitMix64 step."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def derive_seed(seed: int, *parts: int) -> int:
    """A 64-bit seed for sub-stream ``parts`` of ``seed``, the same in every process."""
    x = _mix(seed & _MASK64)
    for part in parts:
        x = _mix((x + (part & _MASK64)) & _MASK64)
    return x
