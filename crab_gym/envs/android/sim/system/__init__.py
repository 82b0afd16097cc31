"""The phone's system services (am, pm, packages, settings and content providers, power, input, dumpsys,
logcat, clock, media) and their shell commands. Apps and the shell meet here: apps call these services,
the shell runs their commands, and the services know apps only through their manifests (manifest.py) and
the registry that loads an app's code when it is first shown."""
