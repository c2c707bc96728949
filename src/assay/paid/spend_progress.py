"""The execute loop's progress bar: calls decided, rate, ETA, and a paid run's money."""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType

from assay.core.progress import progress
from assay.evidence import CallRecord
from assay.evidence.plan import Plan


class SpendProgress:
    """A run's calls decided out of its plan's total, with rate and ETA, and for a paid run the
    money reserved (never refunded) and reported so far against the ceiling. The execute loop
    calls :meth:`observe` with each call's record as it is decided."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.reserved = 0.0
        self.reported = 0.0
        self.bar = progress(sum(c.steps for c in plan.cells), f"execute {plan.run}", unit="call")

    def __enter__(self) -> Callable[[CallRecord], None]:
        return self.observe

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.bar.close()

    def observe(self, record: CallRecord) -> None:
        self.reserved += record.reservation_usd
        self.reported += record.cost_usd or 0.0
        if self.plan.budget.paid:
            self.bar.set_postfix_str(
                f"reserved ${self.reserved:.4f} / ceiling ${self.plan.budget.ceiling_usd:.2f}, "
                f"reported ${self.reported:.4f}",
                refresh=False,
            )
        self.bar.update(1)
