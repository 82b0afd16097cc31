"""The phone's storage: its files (a sandbox at Android paths), its SQLite databases and their seed rows,
kept read connections, and APK manifests."""
