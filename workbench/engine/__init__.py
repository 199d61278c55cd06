"""Training engine: everything that imports paddle / PaddleFormers. Runs in the worker process."""
