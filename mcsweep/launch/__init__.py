"""Sweeps and launchers."""
