"""Training engine: everything that imports paddle / PaddleFormers. Runs in the worker process."""

import logging

# PaddleFormers warns on import, in every process that loads it, that it hides PyTorch from
# transformers; Workbench never uses PyTorch, so the notice only buries the messages that
# matter (the export log showed it first). Its logger is a standard one, named "PaddleFormers":
# a filter set before the import drops that notice alone.
_TORCH_NOTICE = "Due to potential compatibility issues between PaddlePaddle and PyTorch"


def _not_the_torch_notice(record: logging.LogRecord) -> bool:
    return not str(record.msg).startswith(_TORCH_NOTICE)


logging.getLogger("PaddleFormers").addFilter(_not_the_torch_notice)

# before any engine module imports Paddle: its MKL reads this once, when it loads (engine/models/devices.py)
from workbench.engine.models.devices import prefer_fast_blas  # noqa: E402

prefer_fast_blas()
