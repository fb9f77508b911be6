"""Explanations: derivation trees for OWL 2 RL conclusions, found by backward search over a closure.

Spec: OWL 2 Profiles, section 4.3 (https://www.w3.org/TR/owl2-profiles/#OWL_2_RL); rule names are those
of tables 4-9, see :mod:`hybridkg.semantic.reasoning.rules`.

The search runs on a :class:`GraphView` that already holds the closure, so it never derives anything
new: it only picks, for each inferred triple, one rule instance whose premises all hold, and recurses.

* **No cycles.** A triple never appears among its own ancestors: the search carries the path from the
  root and rejects any rule instance with a premise on it.
* **Short proofs first.** Iterative deepening on the tree height; at each node, instances whose premises
  are asserted (or already proved, lowest proofs first) are tried before the others.
* **Memoised.** A proof found for a triple is kept with the set of triples it uses and its height, and
  is reused wherever none of those triples is on the current path and the height fits. Failures are
  remembered per height when they did not depend on the path. An :class:`Explainer` keeps both
  tables across calls, so explaining many triples of one closure shares the work.
* **Two stages.** The depth-first search above is fast on ontology-shaped data (LUBM) but can explode
  where many triples support each other (large ``owl:sameAs`` cliques). It gets ``search_budget`` goal
  visits per call; past that, the explainer collects every triple that may matter to the goal (up to
  ``max_nodes``) and computes minimal proof heights bottom-up (height 0 = asserted, height n = some
  instance with every premise of height < n). Following strictly decreasing heights gives a proof of
  minimal height, acyclic by construction.
* **Bounded.** ``max_depth`` bounds the height in both stages. If a triple holds but no proof is found
  within the bounds, the result is ``status="inferred"`` with ``rule=None`` and no premises: the triple
  is entailed, its derivation unknown. This is a last resort; the tests check it does not happen on
  their data.
* **eq-ref.** ``x owl:sameAs x`` is not materialised; it holds for any term that occurs in the
  closure, and is explained by ``eq-ref`` with one triple mentioning ``x`` as its premise.
* **Ranks (optional).** An engine that records the iteration that first derived each triple (the ``duckdb``
  engine: 0 = asserted, the premises of a triple of rank ``k`` have ranks below ``k``) can pass a ``ranks``
  oracle. Rule instances are then kept only when every premise ranks below the goal, so the search follows the
  engine's own derivation order and never wanders into circular support (``owl:sameAs`` cliques, symmetric and
  inverse properties). Two steps of the engine are one iteration each and keep equal ranks: ``prp-trp`` (a
  transitive closure in one step) and the ``scm-*`` closure of the schema, so their premises may rank equal to
  the goal; ``x rdf:type owl:Thing`` (derived for every subject) is searched without ranks. A premise the oracle
  does not know (a virtual schema triple) is not pruned. Ranks are looked up (in bulk, once per goal) only for a
  goal with a choice of instances and none whose premises are all asserted (that one ranks below any goal, and
  is tried first). Ranks only prune; a proof is still checked rule by rule
  against the view, and should the pruned search find none (ranks out of step with the view), the unpruned search
  runs (:attr:`Explainer.unranked_fallbacks` counts how often).
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from pyoxigraph import Literal, NamedNode, Triple

from hybridkg.errors import InvalidInput
from hybridkg.semantic.base import Explanation, GraphView
from hybridkg.semantic.reasoning.rules import SAME_AS, rules_for
from hybridkg.semantic.reasoning.virtual import VirtualSchemaView
from hybridkg.semantic.vocab import THING, TYPE

#: Ranks of triples of the closure, looked up in bulk: triples absent from the result are unknown.
RankOracle = Callable[[Collection[Triple]], Mapping[Triple, int]]

DEFAULT_MAX_DEPTH = 12
DEFAULT_MAX_NODES = 200_000
DEFAULT_SEARCH_BUDGET = 200
#: At most this many instances of one rule are considered for one goal.
MAX_INSTANCES_PER_RULE = 4_096


@dataclass(frozen=True)
class _Proof:
    explanation: Explanation
    support: frozenset[Triple]
    height: int


_NOTHING: frozenset[Triple] = frozenset()
_MAX_FAILURES_PER_GOAL = 8
_UNREACHED = 1 << 30
#: Rules whose engine step keeps the premises at the goal's rank (one closure step in the ``duckdb`` engine).
_SAME_RANK_RULES = frozenset({"prp-trp"})


class _BudgetExhausted(Exception):
    pass


class Explainer:
    """Explains triples of one closure, sharing proofs and failures between calls.

    The view must not change while an explainer is in use; build a new one after a write. Its tables
    grow with the triples explained, so keep one per request or batch, not for the process lifetime.

    ``max_depth`` bounds proof height; ``search_budget`` the goals the depth-first stage visits per call;
    ``max_nodes`` the triples the bottom-up stage may collect per call; ``ranks`` (optional) the engine's
    derivation ranks, to prune rule instances (see the module docstring).
    """

    def __init__(
        self,
        view: GraphView,
        *,
        max_depth: int = DEFAULT_MAX_DEPTH,
        max_nodes: int = DEFAULT_MAX_NODES,
        search_budget: int = DEFAULT_SEARCH_BUDGET,
        ranks: RankOracle | None = None,
    ) -> None:
        if max_depth < 1 or max_nodes < 1 or search_budget < 1:
            raise InvalidInput("max_depth, max_nodes and search_budget must be positive")
        self.view: GraphView = view if isinstance(view, VirtualSchemaView) else VirtualSchemaView(view)
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.search_budget = search_budget
        self._proofs: dict[Triple, _Proof] = {}
        self._failed: dict[Triple, list[tuple[int, frozenset[Triple]]]] = {}
        self._instance_cache: dict[Triple, tuple[tuple[str, tuple[Triple, ...]], ...]] = {}
        self._visits = 0
        self._height: dict[Triple, int] = {}
        self._choice: dict[Triple, tuple[str, tuple[Triple, ...]]] = {}
        self._ranks = ranks
        self._rank: dict[Triple, int | None] = {}
        self._unranked: Explainer | None = None
        #: How many explanations the rank-pruned search did not find and the unpruned search had to.
        self.unranked_fallbacks = 0

    def explain(self, triple: Triple) -> Explanation:
        """Why ``triple`` holds: asserted, not entailed, or a derivation tree."""
        found = self._explain(triple)
        if self._ranks is None or found.status != "inferred" or found.rule is not None:
            return found
        self.unranked_fallbacks += 1
        if self._unranked is None:
            self._unranked = Explainer(
                self.view, max_depth=self.max_depth, max_nodes=self.max_nodes, search_budget=self.search_budget
            )
        return self._unranked.explain(triple)

    def _explain(self, triple: Triple) -> Explanation:
        view = self.view
        if view.is_asserted(triple):
            return Explanation(triple, "asserted")
        if _is_reflexive_same_as(triple):
            proof = self._eq_ref(triple, set())
            return proof.explanation if proof else Explanation(triple, "not_entailed")
        if not view.holds(triple):
            return Explanation(triple, "not_entailed")
        self._visits = 0
        # with ranks every kept instance is one the engine could use, so one pass at full depth (no deepening);
        # candidates with settled low premises first keep proofs short
        depths = range(1, self.max_depth + 1) if self._ranks is None else (self.max_depth,)
        try:
            for depth in depths:
                found = self._prove(triple, set(), depth)
                if isinstance(found, _Proof):
                    return found.explanation
        except _BudgetExhausted:
            pass
        proof = self._shortest(triple)
        return proof.explanation if proof is not None else Explanation(triple, "inferred")

    # ----------------------------------------------------------------------- search

    def _prove(self, goal: Triple, path: set[Triple], depth: int) -> _Proof | frozenset[Triple]:
        """A proof of ``goal`` of height at most ``depth`` avoiding ``path``, or, on failure, the
        triples of ``path`` the failure depends on (the failure stands for any path holding them)."""
        view = self.view
        if view.is_asserted(goal):
            return _Proof(Explanation(goal, "asserted"), frozenset((goal,)), 0)
        known = self._proofs.get(goal)
        if known is not None and known.height <= depth and known.support.isdisjoint(path):
            return known
        if _is_reflexive_same_as(goal):
            return self._eq_ref(goal, path) or frozenset(path)
        if depth <= 0:
            return _NOTHING
        for failed_depth, needs in self._failed.get(goal, ()):
            if failed_depth >= depth and needs <= path:
                return needs
        self._visits += 1
        if self._visits > self.search_budget:
            raise _BudgetExhausted

        blockers: set[Triple] = set()
        candidates: list[tuple[tuple[int, int, int, int], str, tuple[Triple, ...]]] = []
        for name, premises in self._instances(goal):
            on_path = [p for p in premises if p in path]
            if on_path:
                blockers.update(on_path)
                continue
            heights = [self._settled(p, path, depth - 1) for p in premises]
            open_premises = sum(1 for h in heights if h is None)
            settled = max((h for h in heights if h is not None), default=0)
            key = (open_premises, settled, self._top_rank(premises), len(candidates))
            candidates.append((key, name, premises))
        candidates.sort()

        path.add(goal)
        try:
            for _, name, premises in candidates:
                result = self._prove_all(goal, name, premises, path, depth)
                if isinstance(result, _Proof):
                    self._proofs[goal] = result
                    return result
                blockers |= result
        finally:
            path.discard(goal)
        blockers.discard(goal)
        needs = frozenset(blockers)
        failures = self._failed.setdefault(goal, [])
        if len(failures) < _MAX_FAILURES_PER_GOAL:
            failures.append((depth, needs))
        return needs

    def _instances(self, goal: Triple) -> tuple[tuple[str, tuple[Triple, ...]], ...]:
        """Every rule instance concluding ``goal`` (independent of the path, so cached)."""
        found = self._instance_cache.get(goal)
        if found is None:
            collected: list[tuple[str, tuple[Triple, ...]]] = []
            for rule in rules_for(goal):
                for premises in itertools.islice(rule.instances(goal, self.view), MAX_INSTANCES_PER_RULE):
                    if goal not in premises:
                        collected.append((rule.name, premises))
            if self._ranks is not None and len(collected) > 1 and not any(map(self._all_asserted, collected)):
                collected = self._below_goal(goal, collected)
            found = self._instance_cache[goal] = tuple(collected)
        return found

    def _below_goal(
        self, goal: Triple, instances: list[tuple[str, tuple[Triple, ...]]]
    ) -> list[tuple[str, tuple[Triple, ...]]]:
        """The instances whose premises all rank below ``goal`` (equal for a same-rank step; unknown passes)."""
        self._look_up([goal, *(p for _, premises in instances for p in premises)])
        top = self._rank[goal]
        if top is None or top == 0 or (goal.predicate == TYPE and goal.object == THING):
            return instances
        rank = self._rank
        kept = []
        for name, premises in instances:
            limit = top + 1 if name in _SAME_RANK_RULES or name.startswith("scm-") else top
            if all((r := rank[p]) is None or r < limit for p in premises):
                kept.append((name, premises))
        return kept

    def _all_asserted(self, instance: tuple[str, tuple[Triple, ...]]) -> bool:
        return all(self.view.is_asserted(p) for p in instance[1])

    def _look_up(self, triples: list[Triple]) -> None:
        assert self._ranks is not None
        missing = {t for t in triples if t not in self._rank}
        if missing:
            found = self._ranks(missing)
            for t in missing:
                self._rank[t] = found.get(t)

    def _top_rank(self, premises: tuple[Triple, ...]) -> int:
        """The highest known rank among ``premises`` (0 without ranks): lower-ranked instances are tried first."""
        return max((r for p in premises if (r := self._rank.get(p)) is not None), default=0)

    def _prove_all(
        self, goal: Triple, rule: str, premises: tuple[Triple, ...], path: set[Triple], depth: int
    ) -> _Proof | frozenset[Triple]:
        subproofs: list[_Proof] = []
        support: set[Triple] = {goal}
        for premise in premises:
            sub = self._prove(premise, path, depth - 1)
            if not isinstance(sub, _Proof):
                return sub
            subproofs.append(sub)
            support |= sub.support
        explanation = Explanation(goal, "inferred", rule, tuple(s.explanation for s in subproofs))
        height = 1 + max((s.height for s in subproofs), default=0)
        return _Proof(explanation, frozenset(support), height)

    def _shortest(self, goal: Triple) -> _Proof | None:
        """A proof of minimal height, by a bottom-up fixpoint over the triples relevant to ``goal``."""
        view = self.view
        instances: dict[Triple, list[tuple[str, tuple[Triple, ...]]]] = {}
        seen = {goal}
        queue = deque((goal,))
        while queue:
            triple = queue.popleft()
            if triple in self._height or view.is_asserted(triple):
                continue
            usable = [
                (name, premises)
                for name, premises in self._instances(triple)
                if not any(_is_reflexive_same_as(p) for p in premises)
            ]
            instances[triple] = usable
            for _, premises in usable:
                for premise in premises:
                    if premise not in seen:
                        if len(seen) >= self.max_nodes:
                            return None
                        seen.add(premise)
                        queue.append(premise)

        height = self._height
        for triple in seen:
            if triple not in instances:
                height.setdefault(triple, 0)
        pending = {t for t in instances if t not in height}
        for level in range(1, self.max_depth + 1):
            reached = {}
            for triple in pending:
                for name, premises in instances[triple]:
                    if all(height.get(p, _UNREACHED) < level for p in premises):
                        reached[triple] = (name, premises)
                        break
            for triple, chosen in reached.items():
                height[triple] = level
                self._choice[triple] = chosen
            if goal in height:
                return self._build(goal, frozenset())
            pending -= reached.keys()
        return None

    def _build(self, triple: Triple, ancestors: frozenset[Triple]) -> _Proof:
        height = self._height
        if height[triple] == 0:
            return _Proof(Explanation(triple, "asserted"), frozenset((triple,)), 0)
        known = self._proofs.get(triple)
        if known is not None and known.height <= height[triple] and known.support.isdisjoint(ancestors):
            return known
        name, premises = self._choice[triple]
        below = ancestors | {triple}
        subproofs = [self._build(p, below) for p in premises]
        support = frozenset().union(*(s.support for s in subproofs)) | {triple}
        explanation = Explanation(triple, "inferred", name, tuple(s.explanation for s in subproofs))
        proof = _Proof(explanation, support, height[triple])
        self._proofs[triple] = proof
        return proof

    def _settled(self, triple: Triple, path: set[Triple], depth: int) -> int | None:
        """The height of a known proof of ``triple`` usable here (0: asserted), or ``None``."""
        if self.view.is_asserted(triple):
            return 0
        known = self._proofs.get(triple)
        usable = known is not None and known.height <= depth and known.support.isdisjoint(path)
        return known.height if usable and known is not None else None

    def _eq_ref(self, goal: Triple, path: set[Triple]) -> _Proof | None:
        term = goal.subject
        view = self.view
        mentions = [
            *view.match(term, None, None),  # type: ignore[arg-type]
            *(view.match(None, term, None) if isinstance(term, NamedNode) else ()),
            *view.match(None, None, term),
        ]
        usable = [t for t in mentions if not _is_reflexive_same_as(t) and t not in path and t != goal]
        if not usable:
            return None
        usable.sort(key=lambda t: not view.is_asserted(t))
        path.add(goal)
        try:
            for premise in usable[:16]:
                sub = self._prove(premise, path, self.max_depth)
                if isinstance(sub, _Proof):
                    explanation = Explanation(goal, "inferred", "eq-ref", (sub.explanation,))
                    return _Proof(explanation, sub.support | {goal}, sub.height + 1)
        finally:
            path.discard(goal)
        return None


def _is_reflexive_same_as(triple: Triple) -> bool:
    return triple.predicate == SAME_AS and triple.subject == triple.object and not isinstance(triple.subject, Literal)


def explain(
    triple: Triple,
    view: GraphView,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_nodes: int = DEFAULT_MAX_NODES,
    search_budget: int = DEFAULT_SEARCH_BUDGET,
    ranks: RankOracle | None = None,
) -> Explanation:
    """Explain one triple against ``view``; see :class:`Explainer` to explain many."""
    explainer = Explainer(view, max_depth=max_depth, max_nodes=max_nodes, search_budget=search_budget, ranks=ranks)
    return explainer.explain(triple)
