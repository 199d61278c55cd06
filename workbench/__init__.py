"""Workbench: fine-tune, evaluate and export language models on PaddlePaddle without code."""

__version__ = "0.1.0"
