"""The GPU path's helpers: a pre-launch memory estimate and the vLLM server-mode launch layout.

Importing this package pulls in no CUDA library and no vLLM, so it runs on the CPU install.
"""

from mcsweep.gpu.batching import BatchLayout, batch_layout
from mcsweep.gpu.memory import Estimate, ModelShape, check_fits, launch_strategy, model_shape

__all__ = ["BatchLayout", "Estimate", "ModelShape", "batch_layout", "check_fits", "launch_strategy", "model_shape"]
