"""The desktop's panel, run inside the session by Debian's python3 (GTK 3, Wnck): one dock along the bottom.

It holds an application menu, one launcher per app the tasks use, a window list and a clock frozen to the
configured time. Every item is a GTK widget, so AT-SPI exposes it with its role and name and Set-of-Marks
numbers it. The panel outlives episodes: at each reset the host sends ``{"op": "reset", "args": {"clock":
ISO}}`` on stdin and gets ``{"ok": true, ...}`` once popups are closed, the window list matches the windows
and the panel has drawn (the session agent's protocol). It never takes the keyboard focus, and never talks
to the session bus, which is replaced at every reset; it reaches AT-SPI through ``AT_SPI_BUS_ADDRESS``.

Usage: python3 panel_app.py CONFIG.json   (see crab_gym/envs/desktop/backends/panel.py for the fields)
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import sys
import warnings

# The panel's own D-Bus session is none: the bus it would connect to dies at the next reset, and GLib ends
# a process whose session bus connection closes. Programs it launches get the real address back. (Set
# before GLib is loaded, and only when run as the panel.)
SESSION_ENV = {k: os.environ[k] for k in ("DBUS_SESSION_BUS_ADDRESS", "GSETTINGS_BACKEND") if k in os.environ}
if __name__ == "__main__":
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = "disabled:"
    os.environ["GSETTINGS_BACKEND"] = "memory"

import gi  # noqa: E402

if __name__ == "__main__":
    # Started before the X server is up, so Python and gi load meanwhile: the host's first line names the
    # display once it and the accessibility bus are up. Read unbuffered: the requests after it are stdin's.
    first = b""
    while not first.endswith(b"\n"):
        byte = os.read(0, 1)
        if not byte:
            sys.exit(0)  # the host went away before the session was up
        first += byte
    os.environ["DISPLAY"] = json.loads(first)["display"]

gi.require_version("Atk", "1.0")
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
gi.require_version("Pango", "1.0")
from gi.repository import Atk, Gdk, Gio, GLib, Gtk, Pango  # noqa: E402

try:
    gi.require_version("Wnck", "3.0")
    from gi.repository import Wnck  # noqa: E402
except (ImportError, ValueError):  # Debian package gir1.2-wnck-3.0 missing: no window list, said in the log
    Wnck = None

WM_CLASS = "crab-panel"
FIELD_CODES = re.compile(r"%[fFuUdDnNickvm]")
CSS = b"""
#crab-panel { background-color: #1d232b; border-top: 1px solid #39424e; }
.panel-item { color: #eef1f5; background: none; border: none; box-shadow: none; text-shadow: none;
  -gtk-icon-shadow: none; padding: 0 6px; margin: 2px 1px; border-radius: 4px; min-height: 0; }
.panel-item > label, .panel-item > box > label { color: #eef1f5; }
.panel-item:hover { background-color: rgba(255, 255, 255, 0.12); }
.panel-item:checked, .panel-item:active { background-color: rgba(255, 255, 255, 0.22); }
.window-button { border-bottom: 2px solid transparent; border-radius: 0; }
.window-button:checked { border-bottom-color: #7fb3ff; }
separator.panel-item { background-color: #39424e; margin: 6px 4px; padding: 0; min-width: 1px; }
"""


def reply(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def app_argv(app: Gio.DesktopAppInfo) -> list[str]:
    """The program an app's desktop file runs, without field codes; Terminal=true apps in a terminal."""
    argv = GLib.shell_parse_argv(FIELD_CODES.sub("", app.get_commandline() or ""))[1]
    if app.get_boolean("Terminal"):
        argv = ["xfce4-terminal", "-x", *argv]
    return argv


def app_icon(entry: dict, app: Gio.DesktopAppInfo) -> Gio.Icon | None:
    return Gio.ThemedIcon.new(entry["icon"]) if entry.get("icon") else app.get_icon()


def unnamed_image(icon: Gio.Icon | None, size: int) -> Gtk.Image:
    """An icon for a button. Its accessible role is image, not icon: the button is what gets named and
    marked, not a nameless picture inside it."""
    image = Gtk.Image.new_from_gicon(icon, Gtk.IconSize.LARGE_TOOLBAR) if icon else Gtk.Image()
    image.set_pixel_size(size)
    image.get_accessible().set_role(Atk.Role.IMAGE)
    return image


def named(widget: Gtk.Widget, name: str) -> Gtk.Widget:
    widget.get_accessible().set_name(name)
    return widget


def panel_item(widget: Gtk.Widget, *classes: str) -> Gtk.Widget:
    """A widget styled as a panel item (light on the dark bar; menus keep the theme's look)."""
    for c in ("panel-item", *classes):
        widget.get_style_context().add_class(c)
    return widget


def separator() -> Gtk.Widget:
    return panel_item(Gtk.Separator(orientation=Gtk.Orientation.VERTICAL))


class Panel:
    def __init__(self, config: dict) -> None:
        self.config = config
        self.launch_env = {**os.environ, **SESSION_ENV}
        width, screen_h = config["screen"]
        height = config["height"]
        icon = config["icon_size"]
        self.win = Gtk.Window(title="Panel")
        self.win.set_name("crab-panel")
        with warnings.catch_warnings():  # deprecated, yet the only way to name the class of a GTK 3 window
            warnings.simplefilter("ignore", DeprecationWarning)
            self.win.set_wmclass(WM_CLASS, WM_CLASS)
        self.win.set_type_hint(Gdk.WindowTypeHint.DOCK)
        self.win.set_decorated(False)
        self.win.set_accept_focus(False)
        self.win.set_focus_on_map(False)
        self.win.set_skip_taskbar_hint(True)
        self.win.set_skip_pager_hint(True)
        self.win.set_resizable(False)
        self.win.set_size_request(width, height)
        self.win.move(0, screen_h - height)
        style = Gtk.CssProvider()
        style.load_from_data(CSS)
        Gtk.StyleContext.add_provider_for_screen(
            Gdk.Screen.get_default(), style, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION
        )
        bar = Gtk.Box(orientation=Gtk.Orientation.HORIZONTAL, spacing=0)
        self.win.add(bar)

        apps = [(entry, Gio.DesktopAppInfo.new(entry["desktop_id"])) for entry in config["apps"]]
        self.missing = [entry["desktop_id"] for entry, app in apps if app is None]
        if self.missing:
            print(f"crab-panel: desktop files not installed: {self.missing}", file=sys.stderr)
        apps = [(entry, app) for entry, app in apps if app is not None]

        # the application menu
        self.menu = Gtk.Menu()
        group = None
        for entry, app in apps:
            name = entry["name"]
            if group is not None and entry["group"] != group:
                self.menu.append(Gtk.SeparatorMenuItem())
            group = entry["group"]
            item = Gtk.MenuItem()
            row = Gtk.Box(spacing=8)
            row.pack_start(unnamed_image(app_icon(entry, app), 16), False, False, 0)
            row.pack_start(Gtk.Label(label=name, xalign=0), True, True, 0)
            item.add(row)
            named(item, name)
            item.connect("activate", self.launch, app)
            self.menu.append(item)
        self.menu.show_all()
        self.menu_button = panel_item(Gtk.MenuButton(popup=self.menu, relief=Gtk.ReliefStyle.NONE))
        content = Gtk.Box(spacing=6)
        content.pack_start(unnamed_image(Gio.ThemedIcon.new("view-app-grid-symbolic"), 16), False, False, 0)
        content.pack_start(Gtk.Label(label="Applications"), False, False, 0)
        self.menu_button.add(content)
        bar.pack_start(named(self.menu_button, "Applications"), False, False, 2)
        bar.pack_start(separator(), False, False, 0)

        # launchers
        for entry, app in apps:
            if not entry["launcher"]:
                continue
            name = entry["name"]
            button = panel_item(Gtk.Button(relief=Gtk.ReliefStyle.NONE))
            button.add(unnamed_image(app_icon(entry, app), icon))
            button.connect("clicked", self.launch, app)
            bar.pack_start(named(button, name), False, False, 0)
        bar.pack_start(separator(), False, False, 0)

        # the window list
        self.windows = Gtk.Box(spacing=2)
        self.window_buttons: dict[int, Gtk.ToggleButton] = {}
        self.watched: set[int] = set()
        self.updating = False
        bar.pack_start(self.windows, True, True, 0)
        self.screen = None
        if Wnck is not None:
            Wnck.set_client_type(Wnck.ClientType.PAGER)
            self.screen = Wnck.Screen.get_default()
            for signal in (
                "window-opened",
                "window-closed",
                "active-window-changed",
                "window-stacking-changed",
            ):
                self.screen.connect(signal, lambda *_: self.refresh_windows())
        else:
            print("crab-panel: Wnck (gir1.2-wnck-3.0) is not installed: no window list", file=sys.stderr)

        # the clock, frozen to the configured time; a click shows that month
        self.clock = panel_item(Gtk.ToggleButton(relief=Gtk.ReliefStyle.NONE))
        self.clock_label = Gtk.Label()
        self.clock.add(self.clock_label)
        self.calendar = CalendarPopup(self.clock, (width, screen_h - height))
        bar.pack_end(self.clock, False, False, 4)
        self.set_clock(config["clock"])

        self.win.show_all()
        GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, self.on_request)

    # ---- behaviour ------------------------------------------------------------------------------
    def launch(self, _widget: Gtk.Widget, app: Gio.DesktopAppInfo) -> None:
        """Start an app the way its desktop file says, in HOME, with the session's environment."""
        try:
            GLib.spawn_async(
                app_argv(app),
                envp=[f"{k}={v}" for k, v in self.launch_env.items()],
                working_directory=self.launch_env.get("HOME", "/"),
                flags=GLib.SpawnFlags.SEARCH_PATH
                | GLib.SpawnFlags.STDIN_FROM_DEV_NULL
                | GLib.SpawnFlags.STDOUT_TO_DEV_NULL
                | GLib.SpawnFlags.STDERR_TO_DEV_NULL,
            )
        except GLib.Error as e:
            print(f"crab-panel: could not start {app.get_id()}: {e.message}", file=sys.stderr)

    def set_clock(self, iso: str) -> None:
        """Show ``iso`` (the time never moves). An unchanged label is left alone: setting it redraws it."""
        now = dt.datetime.fromisoformat(iso)
        text = f"{now:%a} {now.day} {now:%b}  {now:%H:%M}"
        if self.clock_label.get_text() != text:
            self.clock_label.set_text(text)
            named(self.clock, f"Clock: {now:%A} {now.day} {now:%B %Y}, {now:%H:%M}")
        self.calendar.show_date(now)

    def refresh_windows(self) -> None:
        """One toggle button per window that belongs in a task list, in opening order; the active one is
        pressed. A title is ellipsized beyond 24 characters, and down to 6 when many windows are open."""
        if self.screen is None:
            return
        active = self.screen.get_active_window()
        wins = [
            w
            for w in self.screen.get_windows()
            if not w.is_skip_tasklist()
            and w.get_window_type() in (Wnck.WindowType.NORMAL, Wnck.WindowType.DIALOG)
        ]
        wins.sort(key=lambda w: w.get_xid())  # opening order: X ids grow
        seen = set()
        self.updating = True
        for w in wins:
            xid = w.get_xid()
            seen.add(xid)
            button = self.window_buttons.get(xid)
            if button is None:
                button = panel_item(Gtk.ToggleButton(relief=Gtk.ReliefStyle.NONE), "window-button")
                label = Gtk.Label(
                    xalign=0, ellipsize=Pango.EllipsizeMode.END, max_width_chars=24, width_chars=6
                )
                box = Gtk.Box(spacing=6)
                box.pack_start(unnamed_image(None, 16), False, False, 0)
                box.pack_start(label, True, True, 0)
                button.add(box)
                button.connect("toggled", self.on_window_button, w)
                self.windows.pack_start(button, False, False, 0)
                self.window_buttons[xid] = button
                button.show_all()
            box = button.get_child()
            image, label = box.get_children()
            name = w.get_name() or w.get_class_instance_name() or "Window"
            if label.get_text() != name:
                label.set_text(name)
                named(button, name)
            pixbuf = w.get_mini_icon()
            if pixbuf is not None:
                image.set_from_pixbuf(pixbuf)
            button.set_active(active is not None and active.get_xid() == xid)
            if xid not in self.watched:
                w.connect("name-changed", lambda *_: self.refresh_windows())
                w.connect("icon-changed", lambda *_: self.refresh_windows())
                self.watched.add(xid)
        for xid in list(self.window_buttons):
            if xid not in seen:
                self.window_buttons.pop(xid).destroy()
        self.watched &= seen
        self.updating = False

    def on_window_button(self, button: Gtk.ToggleButton, window) -> None:
        if self.updating:
            return
        window.activate(Gtk.get_current_event_time())
        self.refresh_windows()

    # ---- the host's requests ----------------------------------------------------------------------
    def on_request(self, fd: int, condition: GLib.IOCondition) -> bool:
        """One JSON line ``{"op": ..., "args": {...}}``; the answer is one line, as the session agent's."""
        line = sys.stdin.readline() if condition & GLib.IO_IN else ""
        if not line:
            Gtk.main_quit()  # the host is gone
            return False
        try:
            req = json.loads(line)
            op, args = req["op"], req.get("args", {})
            if op == "ready":
                xid = self.win.get_window().get_xid()
                self.after_drawing(
                    lambda: reply({"ok": True, "result": {"xid": xid, "missing": self.missing}})
                )
            elif op == "reset":
                self.reset(args.get("clock") or self.config["clock"])
            else:
                raise ValueError(f"unknown operation {op!r}; known: ready, reset")
        except (ValueError, TypeError, KeyError, AttributeError) as e:
            reply({"ok": False, "error": f"{type(e).__name__}: {e}"})
        return True

    def reset(self, clock: str) -> None:
        """Back to the pristine panel: popups closed, the clock set, the window list following the windows."""
        self.menu.popdown()
        self.menu_button.set_active(False)
        self.calendar.close()
        self.set_clock(clock)
        if self.screen is not None:
            self.screen.force_update()
        self.refresh_windows()
        self.after_drawing(lambda: reply({"ok": True, "result": {"windows": len(self.window_buttons)}}))

    @staticmethod
    def after_drawing(fn) -> None:
        """Run ``fn`` once pending events are handled and the panel has redrawn (an idle below redraws)."""
        GLib.idle_add(lambda: fn() and False, priority=GLib.PRIORITY_LOW)


class CalendarPopup:
    """The month of the clock's date, in a popup above the panel's bottom-right corner (a GTK popover cannot
    leave the panel's window). Like a menu, it holds the pointer and keyboard: a click outside or Escape
    closes it."""

    def __init__(self, toggle: Gtk.ToggleButton, corner: tuple[int, int]) -> None:
        self.toggle, self.corner = toggle, corner
        self.win = Gtk.Window(type=Gtk.WindowType.POPUP)
        self.win.set_name("crab-calendar")
        self.calendar = Gtk.Calendar()
        self.win.add(self.calendar)
        self.win.connect("map-event", self.on_map)
        self.win.connect("button-press-event", self.on_press)
        self.win.connect("key-press-event", self.on_key)
        toggle.connect("toggled", lambda t: self.open() if t.get_active() else self.close())

    def show_date(self, day: dt.datetime) -> None:
        self.calendar.select_month(day.month - 1, day.year)
        self.calendar.select_day(day.day)
        self.date = day

    def open(self) -> None:
        self.show_date(self.date)  # the month the clock shows, whatever was browsed before
        self.calendar.show()
        _, natural = self.win.get_preferred_size()
        self.win.move(self.corner[0] - natural.width - 4, self.corner[1] - natural.height - 4)
        self.win.show()

    def close(self) -> None:
        if self.win.get_visible():
            Gdk.Display.get_default().get_default_seat().ungrab()
            self.win.hide()
        self.toggle.set_active(False)

    def on_map(self, win: Gtk.Window, _event: Gdk.Event) -> bool:
        seat = Gdk.Display.get_default().get_default_seat()
        seat.grab(win.get_window(), Gdk.SeatCapabilities.ALL, True, None, None, None, None)
        return False

    def on_press(self, win: Gtk.Window, event: Gdk.EventButton) -> bool:
        """Presses on other windows come here (the grab), outside the popup: they close it."""
        w, h = win.get_size()
        if 0 <= event.x < w and 0 <= event.y < h:
            return False
        self.close()
        return True

    def on_key(self, _win: Gtk.Window, event: Gdk.EventKey) -> bool:
        if event.keyval == Gdk.KEY_Escape:
            self.close()
            return True
        return False


def main() -> None:
    try:
        with open("/proc/self/comm", "w") as f:
            f.write(WM_CLASS)  # what `ps` and the session's process list show
    except OSError:
        pass
    os.chdir("/")  # HOME is replaced at every reset; launched apps get it as their working directory
    with open(sys.argv[1]) as f:
        config = json.load(f)
    GLib.set_prgname(WM_CLASS)
    GLib.set_application_name("Panel")
    Panel(config)
    Gtk.main()


if __name__ == "__main__":
    main()
