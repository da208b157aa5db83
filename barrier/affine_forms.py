"""Index values as the effect analysis reads them: affine forms in the thread indices.

An index is read as ``c + cx*tx + cy*ty + cz*tz`` (:class:`Affine`) whose constant part and
coefficients are polynomials (:class:`Poly`) in block-uniform values: kernel parameters,
``blockIdx``, ``blockDim``, ``gridDim``, immutable locals defined from those; a uniform
subexpression the analysis cannot expand, such as ``n / 2``, is an opaque uniform atom.
"""

from __future__ import annotations

from dataclasses import dataclass


THREAD_DIMS = ("x", "y", "z")


@dataclass(frozen=True)
class Poly:
    """A polynomial with integer coefficients over named uniform atoms.

    ``terms`` maps a monomial (a sorted tuple of atom names; ``()`` is the constant) to its
    coefficient; zero coefficients are never stored.
    """

    terms: tuple[tuple[tuple[str, ...], int], ...] = ()

    @staticmethod
    def const(value: int) -> "Poly":
        return Poly((((), value),)) if value else Poly()

    @staticmethod
    def atom(name: str) -> "Poly":
        return Poly((((name,), 1),))

    @staticmethod
    def _of(d: dict) -> "Poly":
        return Poly(tuple(sorted((m, c) for m, c in d.items() if c)))

    def __add__(self, other: "Poly") -> "Poly":
        d = dict(self.terms)
        for m, c in other.terms:
            d[m] = d.get(m, 0) + c
        return Poly._of(d)

    def __neg__(self) -> "Poly":
        return Poly(tuple((m, -c) for m, c in self.terms))

    def __sub__(self, other: "Poly") -> "Poly":
        return self + (-other)

    def __mul__(self, other: "Poly") -> "Poly":
        d: dict = {}
        for m1, c1 in self.terms:
            for m2, c2 in other.terms:
                m = tuple(sorted(m1 + m2))
                d[m] = d.get(m, 0) + c1 * c2
        return Poly._of(d)

    def is_zero(self) -> bool:
        return not self.terms

    def as_int(self) -> int | None:
        if not self.terms:
            return 0
        if len(self.terms) == 1 and self.terms[0][0] == ():
            return self.terms[0][1]
        return None

    def proven_positive(self) -> bool:
        """True when the value is > 0 for every value of the atoms.

        Only ``blockDim.*``/``gridDim.*`` (at least 1) and ``blockIdx.*`` (at least 0) have known
        signs, so: every monomial but the constant must be of such atoms with a coefficient
        >= 0, and the least value (each size 1, each block index 0) must be positive.
        """
        least = 0
        for mono, c in self.terms:
            if mono == ():
                least += c
            elif c < 0 or not all(_nonnegative_atom(a) for a in mono):
                return False
            elif not any(a.startswith("blockIdx.") for a in mono):
                least += c
        return least > 0

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        parts = []
        for mono, c in self.terms:
            body = "*".join(mono)
            if not body:
                parts.append(str(c))
            elif c == 1:
                parts.append(body)
            elif c == -1:
                parts.append("-" + body)
            else:
                parts.append(f"{c}*{body}")
        return " + ".join(parts).replace("+ -", "- ")


def _nonnegative_atom(atom: str) -> bool:
    return atom.startswith(("blockDim.", "gridDim.", "blockIdx."))


def positive_sign(p: Poly) -> int:
    """+1 or -1 when ``p`` is proven positive or negative, else 0."""
    if p.proven_positive():
        return 1
    if (-p).proven_positive():
        return -1
    return 0


@dataclass(frozen=True)
class Affine:
    """``sum(coef[d] * threadIdx.d) + const``, with uniform polynomial coefficients."""

    coef: tuple[Poly, Poly, Poly] = (Poly(), Poly(), Poly())
    const: Poly = Poly()

    @staticmethod
    def uniform(p: Poly) -> "Affine":
        return Affine(const=p)

    @staticmethod
    def thread(dim: str) -> "Affine":
        coef = [Poly(), Poly(), Poly()]
        coef[THREAD_DIMS.index(dim)] = Poly.const(1)
        return Affine(tuple(coef))

    def is_uniform(self) -> bool:
        return all(c.is_zero() for c in self.coef)

    def __add__(self, other: "Affine") -> "Affine":
        return Affine(tuple(a + b for a, b in zip(self.coef, other.coef)), self.const + other.const)

    def __neg__(self) -> "Affine":
        return Affine(tuple(-c for c in self.coef), -self.const)

    def __sub__(self, other: "Affine") -> "Affine":
        return self + (-other)

    def scale(self, p: Poly) -> "Affine":
        return Affine(tuple(c * p for c in self.coef), self.const * p)

    def __str__(self) -> str:
        parts = []
        for d, c in zip(THREAD_DIMS, self.coef):
            if not c.is_zero():
                parts.append(f"t{d}" if c.as_int() == 1 else f"({c})*t{d}")
        if not self.const.is_zero() or not parts:
            parts.append(str(self.const))
        return " + ".join(parts)
