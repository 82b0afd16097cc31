"""The offline web: stand-in sites at their real host names, content generated from a seed, served over TLS
from a per-session CA inside each desktop session's network namespace. A low layer: it imports no env."""
