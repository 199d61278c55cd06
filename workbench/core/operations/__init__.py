"""Use cases both front ends call: the CLI and the GUI build their work through these."""
