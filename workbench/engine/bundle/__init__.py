"""Files copied into an exported bundle (the stand-alone predict script)."""
