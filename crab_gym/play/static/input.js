"use strict";
// crab-gym play: pointer and keys on a device's screen become that device's named actions (sent by act()
// of play.js). Phone: tap, long_tap, swipe, write_text, press. Desktop: click, right_click, double_click,
// drag, move + scroll, write_text, press, hotkey.

const DRAG_PX = 8;         // a press that moves further is a drag (desktop) or a swipe (phone)
const LONG_MS = 550;       // a phone press held this long is a long press
const DOUBLE_MS = 300;     // a second desktop click within this is a double click
const TYPE_IDLE_MS = 600;  // typed characters are sent as one write_text after this pause
const DESKTOP_KEYS = {
  Enter: "enter", Escape: "esc", Tab: "tab", Backspace: "backspace", Delete: "delete", Insert: "insert",
  Home: "home", End: "end", PageUp: "pageup", PageDown: "pagedown", ArrowUp: "up", ArrowDown: "down",
  ArrowLeft: "left", ArrowRight: "right", " ": "space", Meta: "super", OS: "super", ContextMenu: "menu",
  CapsLock: "capslock", PrintScreen: "printscreen",
};
const CODE_KEYS = {
  Minus: "-", Equal: "=", BracketLeft: "[", BracketRight: "]", Backslash: "\\", Semicolon: ";",
  Quote: "'", Comma: ",", Period: ".", Slash: "/", Backquote: "`", Space: "space",
};

const typed = { device: null, text: "", timer: null };  // characters not yet sent
let pendingClick = null;                                // a desktop click that may become a double click
let lastDesktopPoint = null;                            // where the desktop pointer is
let meta = { down: false, used: false };

function norm(e, img) {
  const r = img.getBoundingClientRect();
  const c = (v) => Math.min(1, Math.max(0, Math.round(v * 10000) / 10000));
  return [c((e.clientX - r.left) / r.width), c((e.clientY - r.top) / r.height)];
}

function bindPointer(device, panel, img) {
  const phone = device === "android";
  let press = null;
  const wheel = { dx: 0, dy: 0, point: null, timer: null };
  img.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    e.preventDefault();
    panel.focus();
    flushText();
    img.setPointerCapture(e.pointerId);
    press = { x: e.clientX, y: e.clientY, t: performance.now(), point: norm(e, img) };
  });
  img.addEventListener("pointerup", (e) => {
    if (e.button !== 0 || !press) return;
    const p = press;
    press = null;
    const end = norm(e, img);
    const moved = Math.hypot(e.clientX - p.x, e.clientY - p.y) > DRAG_PX;
    if (phone) {
      if (moved) swipe(device, p.point, end);
      else if (performance.now() - p.t >= LONG_MS) act(device, "long_tap", { point: p.point });
      else act(device, "tap", { point: p.point });
    } else if (moved) {
      act(device, "drag", { start: p.point, end });
      lastDesktopPoint = end;
    } else {
      desktopClick(device, p.point);
    }
  });
  img.addEventListener("contextmenu", (e) => {
    e.preventDefault();
    panel.focus();
    const point = norm(e, img);
    if (phone) act(device, "long_tap", { point });
    else {
      act(device, "right_click", { point });
      lastDesktopPoint = point;
    }
  });
  img.addEventListener("wheel", (e) => {
    e.preventDefault();
    wheel.dx += e.deltaX;
    wheel.dy += e.deltaY;
    wheel.point = norm(e, img);
    if (!wheel.timer) wheel.timer = setTimeout(() => fireWheel(device, wheel), 200);
  }, { passive: false });
}

function fireWheel(device, wheel) {
  const horizontal = Math.abs(wheel.dx) > Math.abs(wheel.dy);
  const delta = horizontal ? wheel.dx : wheel.dy;
  const { point } = wheel;
  wheel.dx = wheel.dy = 0;
  wheel.timer = null;
  if (!delta) return;
  if (device === "android") {  // the content follows the finger: scrolling down is a swipe up
    const direction = horizontal ? (delta > 0 ? "left" : "right") : delta > 0 ? "up" : "down";
    const distance = Math.abs(delta) <= 150 ? "short" : Math.abs(delta) <= 400 ? "medium" : "long";
    act(device, "swipe", { direction, distance });
    return;
  }
  if (!lastDesktopPoint || Math.hypot(point[0] - lastDesktopPoint[0], point[1] - lastDesktopPoint[1]) > 0.01) {
    act(device, "move", { point });  // the wheel turns where the pointer is
    lastDesktopPoint = point;
  }
  const direction = horizontal ? (delta > 0 ? "right" : "left") : delta > 0 ? "down" : "up";
  act(device, "scroll", { direction, amount: Math.min(10, Math.max(1, Math.round(Math.abs(delta) / 100))) });
}

function swipe(device, start, end) {
  const [w, h] = sizes[device];
  const dx = end[0] - start[0];
  const dy = end[1] - start[1];
  const horizontal = Math.abs(dx * w) > Math.abs(dy * h);
  const frac = Math.abs(horizontal ? dx : dy);
  const direction = horizontal ? (dx > 0 ? "right" : "left") : dy > 0 ? "down" : "up";
  act(device, "swipe", { direction, distance: frac < 0.22 ? "short" : frac < 0.38 ? "medium" : "long" });
}

function desktopClick(device, point) {
  const p = pendingClick;
  if (p && p.device === device && Math.hypot(p.point[0] - point[0], p.point[1] - point[1]) < 0.01) {
    clearTimeout(p.timer);
    pendingClick = null;
    act(device, "double_click", { point });
  } else {
    firePendingClick();
    pendingClick = { device, point, timer: setTimeout(firePendingClick, DOUBLE_MS) };
  }
  lastDesktopPoint = point;
}

function firePendingClick() {
  const p = pendingClick;
  if (!p) return;
  pendingClick = null;
  clearTimeout(p.timer);
  rawSend({ type: "action", device: p.device, action: "click", params: { point: p.point } });
}

// ---- keys --------------------------------------------------------------------------------------
function typeChar(device, ch) {
  firePendingClick();
  if (typed.device !== device) flushText();
  typed.device = device;
  typed.text += ch;
  clearTimeout(typed.timer);
  typed.timer = setTimeout(flushText, TYPE_IDLE_MS);
  showTyping();
  if (typed.text.length >= 1000) flushText();
}

function flushText() {
  clearTimeout(typed.timer);
  if (!typed.text) return;
  const { device, text } = typed;
  typed.text = "";
  typed.device = null;
  showTyping();
  firePendingClick();
  rawSend({ type: "action", device, action: "write_text", params: { text } });
}

function showTyping() {
  for (const el of document.querySelectorAll(".device")) {
    const t = typed.device === el.dataset.device ? typed.text : "";
    el.querySelector(".keys").textContent = t ? `typing: ${t.slice(-30)}` : "click here, then type";
  }
}

function keyName(e, withMods) {
  if (withMods && e.code) {
    if (/^Key[A-Z]$/.test(e.code)) return e.code.slice(3).toLowerCase();
    if (/^Digit\d$/.test(e.code)) return e.code.slice(5);
    if (CODE_KEYS[e.code]) return CODE_KEYS[e.code];
  }
  if (DESKTOP_KEYS[e.key]) return DESKTOP_KEYS[e.key];
  if (/^F\d{1,2}$/.test(e.key)) return e.key.toLowerCase();
  return e.key.length === 1 ? e.key.toLowerCase() : null;
}

function enterAfterText(device) {
  if (typed.device !== device || !typed.text) return false;
  typed.text += "\n";  // write_text presses Enter for a newline: one action for a typed line
  flushText();
  return true;
}

function onKeyDown(device, e) {
  if (["Shift", "Control", "Alt", "AltGraph", "Dead", "Unidentified"].includes(e.key)) return;
  e.preventDefault();
  if (e.key === "Meta" || e.key === "OS") {
    meta = { down: true, used: false };
    return;
  }
  const mods = [];
  if (e.ctrlKey) mods.push("ctrl");
  if (e.altKey) mods.push("alt");
  if (e.metaKey) mods.push("super");
  if (mods.length) meta.used = true;
  if (e.key.length === 1 && !mods.length) return typeChar(device, e.key);
  if (device === "android") {
    if (e.key === "Enter") enterAfterText(device) || act(device, "press", { button: "enter" });
    else if (e.key === "Escape") act(device, "press", { button: "back" });
    else if (e.key === "Home") act(device, "press", { button: "home" });
    else logLine(`the phone has no ${e.key} key (buttons: home, back, enter)`, "error");
    return;
  }
  const name = keyName(e, mods.length > 0);
  if (!name) return logLine(`no desktop key for ${e.key}`, "error");
  if (e.shiftKey && (mods.length || e.key.length > 1) && e.key !== "Enter") mods.push("shift");
  if (mods.length) act(device, "hotkey", { keys: [...mods, name] });
  else if (!(e.key === "Enter" && enterAfterText(device))) act(device, "press", { key: name });
}

function onKeyUp(device, e) {
  if ((e.key === "Meta" || e.key === "OS") && meta.down) {
    if (!meta.used && device !== "android") act(device, "press", { key: "super" });
    meta = { down: false, used: false };
  }
}
