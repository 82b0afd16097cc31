"""The simulated "now": 2024-03-15 09:30:00 UTC, in milliseconds (a fixed clock keeps episodes reproducible).

Its own module: the clock, the file times and the seeding read it, and a phone seeded from the cache
(storage/seedcache.py) never imports the seeding's data classes (storage/baseline.py).
"""

NOW_MS = 1710495000000
