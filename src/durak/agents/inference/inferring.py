"""The sampling agents' inference options (``infer=...``), declared once for all of them.

:class:`Inferring` is the base of the agents that sample worlds (``ismcts`` and the PIMC
agents ``mcts``, ``minimax`` and ``maxn``).  It hears the game through the
:class:`~durak.agents.Watcher` hooks, one :class:`~durak.agents.inference.record.GameLog` per seat
it plays, and with ``infer`` set it weighs the worlds of each decision by the opponents'
moves (:mod:`durak.agents.inference`, after Rebstock et al., CoG 2019) under the model
named (:mod:`durak.agents.inference.opponents`), under any agent given by its spec
(:mod:`durak.agents.inference.agent_model`), or under ``auto``: the mixture of candidate
agents weighted by their posterior given each opponent's moves so far
(:mod:`durak.agents.inference.posterior`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import attrs

from durak.agents.base import Agent, SpecError, check_bound, make_agent
from durak.agents.guides import Guidance, Guide, guide_names, make_guide
from durak.agents.inference.agent_model import AgentModel, model_agent
from durak.agents.inference.belief import Belief, is_weighable, weigh_worlds
from durak.agents.inference.opponents import (
    MODELS,
    GreedyModel,
    GuideModel,
    MixModel,
    OpponentModel,
)
from durak.agents.inference.posterior import (
    CANDIDATES,
    ArgmaxGuideModel,
    Posterior,
    PosteriorModel,
)
from durak.agents.inference.record import GameLog
from durak.agents.optional import MissingAgentExtraError
from durak.agents.specs import Param, model_or_spec, param, params_of
from durak.rules import Action, Observation, Rules, Visibility

__all__ = [
    "GUIDED",
    "MODEL_HELP",
    "Inferring",
    "inference_last",
    "is_agent_spec",
    "opponent_model",
]

#: The models that need the ``dmc`` guide.
GUIDED = ("dmc", "mix")
#: A guide's scores by observation, cached for one decision.
Scores = dict[Observation, Sequence[float]]
#: What an option naming an opponent model takes, after its word for "no model".
MODEL_HELP = f"{', '.join(MODELS[:-1])}, {MODELS[-1]} or any agent spec (';' for ',')"


#: The posterior weight at which :meth:`Inferring.sure_opponent` takes the opponents to be
#: one candidate.
SURE = 0.99


def is_agent_spec(value: str, off: str) -> bool:
    """Whether a model option's ``value`` is an agent spec: neither ``off`` (its word for
    no model) nor a model's name (:data:`~durak.agents.inference.opponents.MODELS`), as
    the option declares (:func:`~durak.agents.specs.model_or_spec`)."""
    return model_or_spec(off, MODELS).is_spec(value)


def opponent_model(
    kind: str, epsilon: float, mix: float, guidance: Guidance | None
) -> OpponentModel:
    """The model named ``kind`` (one of :data:`~durak.agents.inference.opponents.MODELS`): greedy
    with error rate ``epsilon``, the guidance's softmax, or ``mix`` times the latter plus
    the rest times the former (those two need a ``guidance``)."""
    greedy = GreedyModel(epsilon)
    if kind == "greedy":
        return greedy
    if guidance is None:
        raise ValueError(f"the {kind} opponent model needs a guide")
    guided = GuideModel(guidance)
    return guided if kind == "dmc" else MixModel(guided, greedy, mix)


@attrs.frozen
class Inferring:
    """Spec parameters and game hooks of an agent that may infer from the opponents' moves.

    ``guides`` holds the guides its options name (loaded once, at construction), by name.
    It is a :class:`~durak.agents.interface.protocol.RulesBound`: :meth:`check_rules` checks every
    one of them, whichever option named it, so :func:`~durak.agents.make_agent` refuses an agent
    whose guide cannot score the game before the first one.
    """

    infer: str = param(
        "none",
        "opponent model weighing the sampled worlds by the opponents' moves so far: none, "
        + MODEL_HELP,
        holds=model_or_spec("none", MODELS),
    )
    candidates: int = param(64, "worlds weighed per decision with infer", low=1, high=10**4)
    chain: int = param(
        0,
        "Metropolis-Hastings steps from a weighed world with infer (0: the weighed worlds)",
        low=0,
        high=10**5,
    )
    epsilon: float = param(
        0.1, "error rate of the greedy and agent-spec opponent models", low=0, high=1
    )
    model_temperature: float = param(
        1.0, "softmax temperature of the dmc opponent model", low=1e-3, high=100
    )
    mix: float = param(0.5, "weight of dmc in the mix opponent model", low=0, high=1)
    draws: int = param(
        8,
        "act calls estimating an agent-spec model's policy if it has no explicit one",
        low=1,
        high=10**4,
    )
    carry: bool = param(
        False, "with auto: carry each opponent's posterior to the next game (else the prior)"
    )
    logs: dict[int, GameLog] = attrs.field(init=False, eq=False, repr=False, factory=dict)
    guides: dict[str, Guide] = attrs.field(init=False, eq=False, repr=False, factory=dict)
    #: The agents of the agent-spec models, by spec (built once: options naming one spec
    #: share its agent).
    agents: dict[str, Agent] = attrs.field(init=False, eq=False, repr=False, factory=dict)
    #: With ``auto``: the posteriors of each seat it plays (this game), the candidates'
    #: agents, the network's guide if it can be built, and what each opponent's posterior
    #: was at the end of the last game, by seat offset (kept with ``carry``).
    posteriors: dict[int, Posterior] = attrs.field(init=False, eq=False, repr=False, factory=dict)
    candidates_built: dict[str, Agent] = attrs.field(init=False, eq=False, repr=False, factory=dict)
    auto_guide: list[Guide] = attrs.field(init=False, eq=False, repr=False, factory=list)
    carried: dict[int, dict[str, float]] = attrs.field(
        init=False, eq=False, repr=False, factory=dict
    )

    def __attrs_post_init__(self) -> None:
        for name in sorted(self.guide_names()):
            self.guides[name] = make_guide(name)
        if self.auto():
            self._build_candidates()
        for option, spec in self.model_options().items():
            if spec not in self.agents:
                try:
                    self.agents[spec] = model_agent(spec)
                except SpecError as e:
                    raise SpecError(f"{self._name()}: {option}: {e}") from None

    def _name(self) -> str:
        return str(getattr(self, "name", type(self).__name__))

    def auto(self) -> bool:
        """Whether an option names the ``auto`` model."""
        return self.infer == "auto"

    def _build_candidates(self) -> None:
        """The candidates' agents, and the ``dmc`` guide where the network's extra is
        installed (whether it fits the rules is asked per game)."""
        for name in CANDIDATES:
            self.candidates_built[name] = make_agent(name)
        guide = self.guides.get("dmc")
        if guide is None and "dmc" in guide_names():
            try:
                guide = make_guide("dmc")
            except MissingAgentExtraError:
                guide = None
        if guide is not None:
            self.auto_guide.append(guide)

    def candidate_names(self, observation: Observation) -> tuple[str, ...]:
        """The ``auto`` candidates for ``observation``'s game: ``dmc`` too where its
        network was built and fits the rules."""
        for guide in self.auto_guide:
            try:
                check_bound(guide, observation.rules, "auto")
            except SpecError:
                break
            return (*CANDIDATES, "dmc")
        return CANDIDATES

    def auto_model(
        self, observation: Observation, cache: Scores, rng: random.Random
    ) -> PosteriorModel:
        """The mixture of the softened candidates by the posterior of each opponent, its
        moves in this seat's log counted first (the prior without a log ending at
        ``observation``)."""
        names = self.candidate_names(observation)
        models: list[OpponentModel] = []
        for name in names:
            if name == "dmc":
                guidance = Guidance(self.auto_guide[0], self.model_temperature, cache)
                models.append(ArgmaxGuideModel(guidance, self.epsilon))
            else:
                agent = self.candidates_built[name]
                visibility = observation.visibility
                models.append(AgentModel(agent, self.epsilon, self.draws, rng, visibility))
        seat = observation.player
        log, posterior = self.logs.get(seat), self.posteriors.get(seat)
        weights = {}
        if log is not None and posterior is not None and log.latest == observation:
            posterior.update(log, models, rng)
            weights = {q: posterior.weights(q) for q in posterior.loglik}
        return PosteriorModel(tuple(models), weights)

    def sure_opponent(self, observation: Observation, rng: random.Random) -> str | None:
        """With ``auto``: the scripted candidate (not the network) on which every other
        player's posterior puts at least :data:`SURE`, their moves up to ``observation``
        counted first (drawing from ``rng``); ``None`` if there is none, or no record of
        this game ends at ``observation``."""
        posterior = self.posteriors.get(observation.player)
        if posterior is None:  # not auto, or no game started
            return None
        # No weights unless this seat's record ends at ``observation``.
        weights = self.auto_model(observation, {}, rng).weights
        found = set()
        for row in weights.values():
            top = max(range(len(row)), key=row.__getitem__)
            if row[top] < SURE:
                return None
            found.add(posterior.names[top])
        name = found.pop() if len(found) == 1 else None
        return name if name in CANDIDATES else None

    def guide_names(self) -> set[str]:
        """The guides the options need."""
        return {"dmc"} if self.infer in GUIDED else set()

    def model_options(self) -> dict[str, str]:
        """The options whose value is an agent spec (:func:`is_agent_spec`), by name."""
        return {"infer": self.infer} if is_agent_spec(self.infer, "none") else {}

    def check_rules(self, rules: Rules) -> None:
        """:class:`~durak.agents.SpecError`, prefixed with the agent's name, unless every
        guide and every model's agent can play ``rules``' games (a network is made for
        one variant)."""
        for guide in self.guides.values():
            check_bound(guide, rules, self._name())
        for option, spec in self.model_options().items():
            check_bound(self.agents[spec], rules, f"{self._name()}: {option}")

    def model(
        self, kind: str, cache: Scores, rng: random.Random, observation: Observation
    ) -> OpponentModel:
        """The opponent model ``kind`` (a model's name or an agent spec) with this agent's
        settings, for the decision at ``observation``; its guide's scores go in ``cache``
        (one per decision, shared with the search's own guidance).  An agent-spec model
        seeds its draws from ``rng`` (the named models but ``auto`` leave it untouched)
        and reads the observations of the observation's visibility."""
        visibility: Visibility = observation.visibility
        if kind == "auto":
            return self.auto_model(observation, cache, rng)
        if kind in self.agents:
            seed = rng.getrandbits(64)
            return AgentModel(
                self.agents[kind], self.epsilon, self.draws, random.Random(seed), visibility
            )
        guide = self.guides.get("dmc")
        guidance = None if guide is None else Guidance(guide, self.model_temperature, cache)
        return opponent_model(kind, self.epsilon, self.mix, guidance)

    def belief(self, observation: Observation, rng: random.Random, cache: Scores) -> Belief | None:
        """The weighted worlds of this decision, or ``None`` (no ``infer``, or no record of
        this game ending at ``observation``)."""
        if self.infer == "none":
            return None
        log = self.logs.get(observation.player)
        if not is_weighable(log, observation):
            return None
        model = self.model(self.infer, cache, rng, observation)
        return weigh_worlds(log, model, self.candidates, rng, steps=self.chain)

    def game_started(self, observation: Observation) -> None:
        """Start this seat's log (only with ``infer`` or ``auto``) and, with ``auto``, its
        posteriors (from the prior, or those carried from the last game)."""
        if self.infer != "none" or self.auto():
            self.logs[observation.player] = GameLog(observation)
        if self.auto():
            names = self.candidate_names(observation)
            # ``carried`` stays empty without ``carry``: the prior.
            self.posteriors[observation.player] = Posterior.start(names, observation, self.carried)

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        """Add the action to this seat's log."""
        log = self.logs.get(observation.player)
        if log is not None:
            log.moves.append((player, action, observation))

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        """Drop this seat's log and posteriors, keeping the latter with ``carry``."""
        self.logs.pop(observation.player, None)
        posterior = self.posteriors.pop(observation.player, None)
        if posterior is not None and self.carry:
            me, n = observation.player, observation.rules.players
            self.carried.update(posterior.by_offset(me, n))


def inference_last(cls: type) -> tuple[Param, ...]:
    """The spec parameters of ``cls``, its own first and the inherited inference ones
    after (attrs lists a base class's fields first)."""
    shared = {p.name for p in params_of(Inferring)}
    params = params_of(cls)
    return (
        *(p for p in params if p.name not in shared),
        *(p for p in params if p.name in shared),
    )
