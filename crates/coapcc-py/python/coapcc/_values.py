"""Python values as the text the command line would read (``--set KEY=VALUE``).

Every override goes to the Rust side as that text, read there exactly as the CLI reads it:
a TOML value when the text is one (``20``, ``1.5``, ``false``, ``[1, 2]``), a ratio for
``N/D``, else the text as a string (``makarem``, ``off``). So ``s.set("flows", 50)`` and
``--set flows=50`` make the very same setting, and a sweep task carries only strings.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any


def text_of(value: Any) -> str:
    """The command-line text of ``value``.

    >>> text_of(50), text_of(1.5), text_of(False), text_of("makarem"), text_of(Fraction(1, 4))
    ('50', '1.5', 'false', 'makarem', '1/4')
    >>> text_of(["default", "cocoa"])
    '["default", "cocoa"]'
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_inline(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"a value of type `{type(value).__name__}` cannot be a setting")


def _inline(value: Any) -> str:
    """``value`` inside a TOML array or inline table (strings quoted)."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, Fraction):
        return json.dumps(text_of(value))
    return text_of(value)
