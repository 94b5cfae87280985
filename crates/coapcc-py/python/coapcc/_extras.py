"""Optional dependencies, each behind an extra of the package (``pyproject.toml``'s
``[project.optional-dependencies]``): a missing one is an ``ImportError`` that names the extra
to install, not a bare ``No module named …``."""

from __future__ import annotations

import importlib
from types import ModuleType

EXTRAS = {"matplotlib": "plot", "scipy": "plot", "dask": "dask", "distributed": "dask"}
"""The extra that installs each optional top-level module."""


def require(module: str, feature: str) -> ModuleType:
    """``module`` imported, or an ``ImportError`` saying that ``feature`` needs it and which
    extra installs it (``pip install 'coapcc[plot]'``)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        top = module.split(".")[0]
        extra = EXTRAS[top]
        raise ImportError(
            f"{feature} needs {top}, which is not installed: pip install 'coapcc[{extra}]'"
        ) from e
