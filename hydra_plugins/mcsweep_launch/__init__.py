"""mcsweep's Hydra plugins: the validating sweeper and submitit launchers that report every point."""
