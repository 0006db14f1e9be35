"""Config schemas (dataclasses) and their validation; the Hydra config tree ships inside the package."""

from pathlib import Path

CONF_DIR = Path(__file__).resolve().parents[1] / "conf"
"""`mcsweep/conf`: the primary config and one group per concern (top-level `conf/` links here)."""
