"""Number providers (``NumberProviders``): constants, ``uniform`` and ``binomial``.

A bare number is a constant and an object without ``type`` is uniform (the Gson adapter's shorthands).
``score`` providers (scoreboards) are not modelled and raise when loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mirrorcraft.rules.loot.context import Run, java_round, mc_next_int
from mirrorcraft.rules.packs import JsonAt

__all__ = ["Binomial", "Constant", "Number", "Uniform", "parse_number"]


class Number:
    """A number provider: a float or an int per draw, and the largest value it can give."""

    def get_float(self, run: Run) -> float:
        raise NotImplementedError

    def get_int(self, run: Run) -> int:
        return java_round(self.get_float(run))

    def upper(self) -> float:
        """The largest value a draw can give (for static analysis)."""
        raise NotImplementedError


@dataclass(frozen=True)
class Constant(Number):
    value: float

    def get_float(self, run: Run) -> float:
        return self.value

    def upper(self) -> float:
        return self.value


@dataclass(frozen=True)
class Uniform(Number):
    low: Number
    high: Number

    def get_float(self, run: Run) -> float:
        low, high = self.low.get_float(run), self.high.get_float(run)
        # Mth.nextFloat(random, min, max)
        return low if low >= high else run.next_float() * (high - low) + low

    def get_int(self, run: Run) -> int:
        return mc_next_int(run, self.low.get_int(run), self.high.get_int(run))

    def upper(self) -> float:
        return self.high.upper()


@dataclass(frozen=True)
class Binomial(Number):
    n: Number
    p: Number

    def get_int(self, run: Run) -> int:
        trials, chance = self.n.get_int(run), self.p.get_float(run)
        return sum(1 for _ in range(trials) if run.next_float() < chance)

    def get_float(self, run: Run) -> float:
        return float(self.get_int(run))

    def upper(self) -> float:
        return self.n.upper()


def parse_number(value: Any, at: JsonAt) -> Number:
    """Read a number provider.

    Raises:
        JsonError: An unsupported provider type or a malformed field.
    """
    if isinstance(value, int | float) and not isinstance(value, bool):
        return Constant(float(value))
    obj = at.obj(value)
    kind = at.key("type").vanilla_type(obj["type"]) if "type" in obj else "uniform"
    if kind == "constant":
        return Constant(at.key("value").num(at.field(obj, "value")))
    if kind == "uniform":
        return Uniform(
            parse_number(at.field(obj, "min"), at.key("min")),
            parse_number(at.field(obj, "max"), at.key("max")),
        )
    if kind == "binomial":
        return Binomial(
            parse_number(at.field(obj, "n"), at.key("n")), parse_number(at.field(obj, "p"), at.key("p"))
        )
    raise at.key("type").fail(f"unsupported number provider type {obj.get('type')!r}")
