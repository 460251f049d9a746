"""Statistics over simulation results."""
