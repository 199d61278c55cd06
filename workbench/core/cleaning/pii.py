"""Finding and masking personal data in Chinese business text.

Kinds:

* ``phone``     mainland mobile numbers ``1[3-9]`` + 9 digits, optionally with a ``+86`` /
                ``0086`` / ``86`` prefix and ``-`` or space separators (138-1234-5678,
                138 1234 5678), never a piece of a longer digit run.
* ``id_card``   18-character resident ID numbers (17 digits + digit or X), masked only
                when the GB 11643-1999 check character is right and the birth date is a
                real date between 1900 and today.
* ``bank_card`` 16-19 digit card numbers (contiguous, or in groups of four separated by
                a space or ``-``), masked only when the Luhn check passes.
* ``email``     e-mail addresses.

An 18-digit run is an ID number when the ID check holds; otherwise it is a bank card if
the Luhn check holds (one random number in ten passes Luhn); otherwise it is left alone.
A digit run that fails its check is left whole: no phone number is looked for inside it.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable

import numpy as np
import pyarrow as pa

from workbench.core.cleaning import _arrow as arrow_ops

KINDS: tuple[str, ...] = ("phone", "id_card", "bank_card", "email")

DEFAULT_TOKENS: dict[str, str] = {
    "phone": "[电话]",
    "id_card": "[身份证号]",
    "bank_card": "[银行卡号]",
    "email": "[邮箱]",
}

_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def id_checksum_ok(number: str) -> bool:
    """GB 11643: weighted sum of the first 17 digits mod 11 picks the 18th character."""
    if len(number) != 18 or not number[:17].isascii() or not number[:17].isdigit():
        return False
    total = sum(int(d) * w for d, w in zip(number[:17], _ID_WEIGHTS))
    return _ID_CHECK[total % 11] == number[17].upper()


def id_birth_date_ok(number: str, today: _dt.date | None = None) -> bool:
    try:
        born = _dt.date(int(number[6:10]), int(number[10:12]), int(number[12:14]))
    except ValueError:
        return False
    return _dt.date(1900, 1, 1) <= born <= (today or _dt.date.today())


def is_id_number(number: str) -> bool:
    return number[0] != "0" and id_checksum_ok(number) and id_birth_date_ok(number)


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


# One pattern, scanned left to right; each alternative is a candidate that the callback
# below confirms. The digit alternatives all sit between (?<![0-9]) and (?![0-9]), so a
# match is always a whole digit run and a rejected run is skipped as a whole.
_EMAIL = r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9][A-Za-z0-9._%+\-]*@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}"
_PATTERN = re.compile(
    rf"(?P<email>{_EMAIL})"
    r"|(?<![0-9])(?P<idx>[0-9]{17}[Xx])(?![0-9A-Za-z])"
    r"|(?<![0-9])(?P<run>[0-9]{16,19})(?![0-9])"
    r"|(?<![0-9])(?P<grouped>[0-9]{4}(?:[ \-][0-9]{4}){3}(?:[ \-][0-9]{1,3})?)(?![0-9])"
    r"|(?<![0-9+])(?P<phone>(?:(?:\+|00)86[ \-]?|86)?1[3-9][0-9](?:[ \-]?[0-9]{4}){2})(?![0-9])"
)

# Cheap RE2 pre-filters (run by pyarrow over the whole column): a cell can only hold a
# digit-kind candidate if it has 11 digits in a row, allowing single separators.
_DIGITS_PREFILTER = r"[0-9]{3}[ \-]?[0-9]{4}[ \-]?[0-9]{4}"


class PiiMasker:
    """Masks the selected kinds in strings and counts what it masked, per kind."""

    def __init__(self, kinds: Iterable[str], tokens: dict[str, str] | None = None):
        self.kinds = frozenset(kinds)
        self.tokens = {**DEFAULT_TOKENS, **(tokens or {})}
        self.counts: dict[str, int] = {k: 0 for k in KINDS if k in self.kinds}

    def _classify(self, m: re.Match) -> str | None:
        kind = m.lastgroup
        text = m.group(kind)
        if kind == "email":
            return "email" if "email" in self.kinds else None
        if kind == "phone":
            return "phone" if "phone" in self.kinds else None
        if kind == "idx":
            return "id_card" if "id_card" in self.kinds and is_id_number(text) else None
        digits = text if kind == "run" else re.sub(r"[ \-]", "", text)
        if len(digits) == 18 and kind == "run" and "id_card" in self.kinds and is_id_number(digits):
            return "id_card"
        if "bank_card" in self.kinds and 16 <= len(digits) <= 19 and luhn_ok(digits):
            return "bank_card"
        return None

    def _replace(self, m: re.Match) -> str:
        kind = self._classify(m)
        if kind is None:
            return m.group(0)
        self.counts[kind] += 1
        return self.tokens[kind]

    def mask(self, text: str) -> str:
        # A callback, not a replacement string: whether a match is an ID or a card number
        # depends on its check digit (GB 11643 / Luhn), which no regular expression can say.
        return _PATTERN.sub(self._replace, text)

    def candidates(self, values: pa.ChunkedArray) -> np.ndarray:
        """Cells that may hold something to mask (a superset), found by Arrow kernels."""
        found = np.zeros(len(values), dtype=bool)
        if self.kinds & {"phone", "id_card", "bank_card"}:
            found |= arrow_ops.contains(values, _DIGITS_PREFILTER)
        if "email" in self.kinds:
            found |= arrow_ops.contains(values, "@", literal=True)
        return found
