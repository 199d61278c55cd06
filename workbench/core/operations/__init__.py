"""Use cases both front ends call (the GUI and the command line)."""
