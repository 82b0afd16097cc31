"""The phone's shell (mksh-like): tokens, parser, expansion, builtins, jobs, and toybox's file, text and
process commands. System services add their commands to its table; it never imports them or the apps."""
