"""The runtime cost limits kube-apiserver holds CEL evaluations to, and the budget they draw from.

Upstream (`apiserver/pkg/apis/cel/config.go`): every program is cancelled once its own cost passes
PerCallLimit, and a custom object's rules, or a policy binding's expressions, share a budget
(RuntimeCELCostBudget; a webhook's or binding's matchConditions RuntimeCELCostBudgetMatchConditions),
each evaluation's actual cost taken from what remains. Costs are cel-go's (apiserver/cel/runtimecost.py).

Tracing costs a replay of the expression, so it is done only where a limit can be reached: the static
estimate (apiserver/cel/cost.py) bounds what an evaluation can cost, and while the estimates of the
evaluations so far fit in what remains and each fits the per-call limit, nothing is traced. Once one
does not, the evaluations not traced yet are, to know exactly what remains, and so is that one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from apiserver.cel import checkedexpr, runtimecost
from apiserver.cel.environment import Program

PER_CALL_LIMIT = 1_000_000  # PerCallLimit
RUNTIME_BUDGET = 10_000_000  # RuntimeCELCostBudget: a custom object's rules, a policy binding's expressions
MATCH_CONDITIONS_BUDGET = 2_500_000  # RuntimeCELCostBudgetMatchConditions
LIMIT_EXCEEDED = runtimecost.LIMIT_EXCEEDED
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"


@dataclass(frozen=True)
class Charge:
    """What one evaluation cost, as far as the limits care."""

    over_limit: bool = False  # its cost passed the per-call limit: cel-go cancelled it with LIMIT_EXCEEDED
    over_budget: bool = False  # its cost passed what remained of the budget


WITHIN = Charge()


def actual_cost(program: Program, data: dict[str, Any], limit: int) -> runtimecost.Traced | None:
    """cel-go's cost of evaluating `program` on `data`, stopped once past `limit`; None if not replayable."""
    if program.checked is None:
        return None
    return runtimecost.trace(checkedexpr.parsed(program.checked.serialize()), data, limit)


@dataclass
class Budget:
    """A cost budget drawn on by evaluations in turn; `most` is each one's static estimate."""

    remaining: int
    stopped: bool = False  # an evaluation ended the run: no further rules are run
    _pending: list[tuple[Program, dict[str, Any]]] = field(default_factory=list)
    _bound: int = 0  # the estimates of the evaluations in _pending

    def spend(self, program: Program, data: dict[str, Any], most: int) -> Charge:
        """Draws the cost of `program` evaluated on `data`; past the budget, what remains is left as it was."""
        if most <= PER_CALL_LIMIT and self._bound + most <= self.remaining:
            self._pending.append((program, data))
            self._bound += most
            return WITHIN
        self._settle()
        # Past what remains, the budget is spent whatever the per-call limit says: stop there.
        traced = actual_cost(program, data, max(min(PER_CALL_LIMIT, self.remaining), 0))
        if traced is None:
            return WITHIN
        if traced.cost > self.remaining:
            return Charge(over_limit=traced.exceeded, over_budget=True)
        self.remaining -= traced.cost
        return Charge(over_limit=traced.exceeded)

    def exhausted(self) -> bool:
        """Whether nothing remains (upstream refuses to start another level's rules then)."""
        if self._bound < self.remaining:
            return False
        self._settle()
        return self.remaining <= 0

    def _settle(self) -> None:
        for program, data in self._pending:
            traced = actual_cost(program, data, runtimecost.UNLIMITED)
            if traced is not None:
                self.remaining -= traced.cost
        self._pending.clear()
        self._bound = 0
