"""The stand-in sites: one module each, starlette routes over a WebWorld; ``app`` picks by Host."""
