"""Check results and the verdict vocabulary (MATH.md, "Verdicts")."""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["VERDICTS", "CheckResult"]

VERDICTS = ("proved", "certified", "holds", "consistent", "violated", "inconclusive")


@dataclass
class CheckResult:
    id: str
    paper_ref: str
    title: str
    verdict: str
    expected: str
    margin: float | None = None          # worst (smallest) margin; >= 0 means the bound holds
    tightness: float | None = None       # best (smallest) bound / exact ratio where meaningful
    seconds: float = 0.0
    details: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.verdict == self.expected

    def as_json(self) -> dict:
        return {"id": self.id, "paper_ref": self.paper_ref, "title": self.title,
                "verdict": self.verdict, "expected": self.expected, "margin": self.margin,
                "tightness": self.tightness, "seconds": round(self.seconds, 3), "details": self.details}
