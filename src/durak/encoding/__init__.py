"""Fixed encodings of Durak for learning agents (needs numpy: ``pip install durak-lab[rl]``).

* :class:`ActionSpace`: a fixed integer action space per :class:`~durak.rules.Rules`, with
  legal-action masks (:mod:`durak.encoding.actions`);
* :func:`encode_observation`: a fixed-length float32 vector of one player's
  :class:`~durak.rules.Observation` (:mod:`durak.encoding.observations`), whose card
  blocks are :func:`card_bits`.

The layouts are documented in those modules and in ``docs/encoding.md``.  The core library
(:mod:`durak.rules`, :mod:`durak.search`, :mod:`durak.agents`) never imports this package.
"""

from durak.encoding.actions import ActionSpace, action_space_size
from durak.encoding.observations import card_bits, encode_observation, observation_size

__all__ = [
    "ActionSpace",
    "action_space_size",
    "card_bits",
    "encode_observation",
    "observation_size",
]
