"""What a metric name resolves to (:class:`Resolved`) and the peer names the registry refuses (:func:`refusals`):
the two things :mod:`evalcore.names` and :mod:`evalcore._irm_names` (ir_measures' syntax) share, in a module below
both so that neither imports the other back."""
from __future__ import annotations

from dataclasses import dataclass, field

from .specs import METRICS

__all__ = ["Resolved", "refusals"]


def refusals() -> dict[tuple[str, str], list]:
    """(convention, lower-case peer base name) -> the :class:`evalcore.specs.PeerRule` objects of every spec."""
    out: dict[tuple[str, str], list] = {}
    for spec in METRICS.values():
        for rule in spec.refused:
            out.setdefault((rule.convention, rule.name.lower()), []).append(rule)
    return out


@dataclass(frozen=True)
class Resolved:
    """What a name means: evalcore's key, the cutoff, parameters the name fixes, where it came from."""

    base: str                        # evalcore registry key, e.g. "MSnDCG"
    cutoff: int | None
    params: dict = field(default_factory=dict)   # rel_threshold, beta, gains, penalties, log_base
    convention: str = "evalcore"
    at: str | None = None            # ``@x`` of a measure whose @ is not a cutoff (IPrec@0.1), as written in keys

    @property
    def key(self) -> str:
        """The canonical evalcore key (parameters left out): ``MSnDCG@10``, ``IPrec@0.1``."""
        if self.at is not None:
            return f"{self.base}@{self.at}"
        return self.base + (f"@{self.cutoff}" if self.cutoff is not None else "")
