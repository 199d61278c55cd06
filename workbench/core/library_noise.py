"""What the libraries under the engine print that says nothing to the person using Workbench:
Python warnings raised inside installed packages (with the source line Python prints under
each), the C++ runtime's info and warning lines (glog), and the transformers notice about
PyTorch. The Export log and the Environment dialog leave these out; errors stay."""

from __future__ import annotations

import re

_PACKAGE_WARNING = re.compile(r"^\S*[\\/](?:site|dist)-packages[\\/]\S+:\d+: \w*Warning: ")
_WARN_SOURCE = re.compile(r"^\s+warnings\.warn\(")
_GLOG_INFO = re.compile(r"^[IW]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ \S+:\d+\] ")
_NOTICES = ("None of PyTorch, TensorFlow >= 2.0, or Flax have been found.",)


class NoiseFilter:
    """Tells, line by line, whether a line is library noise (it remembers that a package
    warning's source line comes next)."""

    def __init__(self) -> None:
        self._after_warning = False

    def is_noise(self, line: str) -> bool:
        after, self._after_warning = self._after_warning, False
        if _PACKAGE_WARNING.match(line):
            self._after_warning = True
            return True
        if after and _WARN_SOURCE.match(line):
            return True
        return bool(_GLOG_INFO.match(line)) or line.startswith(_NOTICES)


def without_noise(text: str) -> str:
    """``text`` without the lines that are library noise."""
    keep = NoiseFilter()
    return "\n".join(line for line in text.split("\n") if not keep.is_noise(line))
