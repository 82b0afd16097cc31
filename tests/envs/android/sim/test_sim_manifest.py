"""The apps' manifests (system/manifest.py) say what each app's code says (its AppSpec in apps/), so the
system, which reads only the manifests until an app is shown, cannot drift from the apps."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

from crab_gym.envs.android.sim import apps
from crab_gym.envs.android.sim.system import registry
from crab_gym.envs.android.sim.system.manifest import MANIFESTS, Manifest


@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda m: m.package)
def test_each_manifest_says_what_its_apps_code_says(manifest: Manifest):
    app = apps.load(manifest.package)
    said = (app.package, app.label, app.color, app.main, app.in_drawer)
    assert said == (manifest.package, manifest.label, manifest.color, manifest.main, manifest.in_drawer)
    # the same screens in the same order (intents resolve a class to its first screen), the same classes
    assert [(n, c) for n, (c, _) in app.screens.items()] == list(manifest.activities.items())
    assert [app.activity(n) for n in app.screens] == [manifest.activity(n) for n in manifest.screens]
    assert sorted(app.uri_handlers) == sorted(manifest.schemes)
    # every module that adds to the app is one the manifest loads, and each defines or extends this APP
    made_by = {f.__module__ for _, f in app.screens.values()}
    made_by |= {f.__module__ for f in app.uri_handlers.values()}
    listed = {f"{apps.__name__}.{m}" for m in manifest.modules}
    assert made_by <= listed | {f"{apps.__name__}.recents"}  # overview's builder, declared by the launcher
    assert all(importlib.import_module(m).APP is app for m in listed)


def test_every_app_module_with_an_appspec_has_a_manifest():
    first = {m.modules[0]: m.package for m in MANIFESTS}
    for info in pkgutil.iter_modules(apps.__path__):
        module = importlib.import_module(f"{apps.__name__}.{info.name}")
        app = getattr(module, "APP", None)
        if isinstance(app, registry.AppSpec) and app.package not in registry.APPS:
            pytest.fail(f"apps/{info.name}.py defines {app.package}, which no manifest declares")
        if info.name in first:
            assert app is not None and app.package == first[info.name], info.name
    assert list(registry.APPS) == [m.package for m in MANIFESTS]  # the install order (uids) is the manifests'


def test_an_unknown_package_or_a_missing_scheme_is_no_crash():
    with pytest.raises(KeyError, match="no app 'com.example.nothing'"):
        registry.spec("com.example.nothing")
    assert registry.uri_handler("gopher") is None
    assert registry.uri_handler("tel") is apps.load("com.google.android.dialer").uri_handlers["tel"]
