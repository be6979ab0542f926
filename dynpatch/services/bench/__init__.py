"""The bench: what the change saves, in instructions under callgrind (gated) and in time."""
