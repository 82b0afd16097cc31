"use strict";
// crab-gym play: the page's side of the protocol of crab_gym/play/server.py. Pointer and keys on a screen
// become that device's named actions; the server validates them like an agent's and steps the env.

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
let ws = null;
let fatal = false;
let tasks = [];
let state = null;
const sizes = {};                                      // device -> [width, height]

// ---- connection ------------------------------------------------------------------------------
function connect() {
  ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.binaryType = "arraybuffer";
  ws.onmessage = (ev) => (typeof ev.data === "string" ? onJson(JSON.parse(ev.data)) : onFrame(ev.data));
  ws.onclose = () => {
    setStatus("Disconnected");
    if (!fatal) banner("error", "The connection closed: reload the page to play again.");
  };
}

function rawSend(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}

function act(device, action, params = {}) {
  if (action !== "write_text") flushText();
  firePendingClick();
  rawSend({ type: "action", device, action, params });
}

function onJson(msg) {
  if (msg.type === "hello") onHello(msg);
  else if (msg.type === "status") setStatus(msg.message);
  else if (msg.type === "state") render(msg);
  else if (msg.type === "marked") {
    $("mark-status").textContent = `saved: ${msg.mark.verdict} for ${msg.mark.task_id}`;
    document.body.dataset.marked = msg.mark.verdict;
  } else if (msg.type === "error") {
    if (msg.fatal) {
      fatal = true;
      banner("error", msg.message);
      setStatus("Not playing");
    } else {
      logLine(`error: ${msg.message}`, "error");
    }
  }
}

function onFrame(buffer) {
  const bytes = new Uint8Array(buffer);
  const nl = bytes.indexOf(10);
  const device = new TextDecoder().decode(bytes.subarray(0, nl));
  const img = document.querySelector(`#dev-${device} img.screen`);
  if (!img) return;
  const url = URL.createObjectURL(new Blob([bytes.subarray(nl + 1)], { type: "image/jpeg" }));
  const old = img.dataset.url;
  img.onload = () => {
    if (old) URL.revokeObjectURL(old);
    img.dataset.frames = String(Number(img.dataset.frames || 0) + 1);
  };
  img.dataset.url = url;
  img.src = url;
}

// ---- screens and their input -----------------------------------------------------------------
function onHello(msg) {
  tasks = msg.tasks;
  const select = $("task-select");
  select.replaceChildren(...tasks.map((t) => new Option(`${t.id} (${t.devices.join("+")})`, t.id)));
  const screens = $("screens");
  screens.replaceChildren();
  for (const d of msg.devices) {
    sizes[d.name] = d.size;
    screens.append(devicePanel(d.name, d.size));
  }
  document.body.dataset.session = msg.session;
}

function button(label, title, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  b.title = title;
  b.addEventListener("click", onClick);
  return b;
}

function devicePanel(device, size) {
  const panel = document.createElement("div");
  panel.className = "device";
  panel.id = `dev-${device}`;
  panel.tabIndex = 0;
  panel.dataset.device = device;
  const head = document.createElement("div");
  head.className = "device-head";
  const name = document.createElement("strong");
  name.textContent = device === "android" ? "android (phone)" : device === "ubuntu" ? "ubuntu (desktop)" : device;
  const keys = document.createElement("span");
  keys.className = "keys";
  keys.textContent = "click here, then type";
  head.append(name, keys);
  const img = document.createElement("img");
  img.className = "screen";
  img.alt = `${device} screen`;
  img.width = size[0];
  img.height = size[1];
  img.draggable = false;
  const buttons = document.createElement("div");
  buttons.className = "device-buttons";
  if (device === "android") {
    buttons.append(
      button("Back", "press back", () => act(device, "press", { button: "back" })),
      button("Home", "press home", () => act(device, "press", { button: "home" })),
      button("Apps", "open the app drawer", () => act(device, "open_app_drawer")),
    );
  } else {
    const app = document.createElement("input");
    app.type = "text";
    app.placeholder = "application name";
    app.className = "app-name";
    const open = () => {
      if (app.value.trim()) act(device, "search_application", { name: app.value.trim() });
      app.value = "";
    };
    app.addEventListener("keydown", (e) => {
      if (e.key === "Enter") open();
    });
    buttons.append(app, button("Open app", "search the launcher for an application and start it", open));
  }
  panel.append(head, img, buttons);
  bindPointer(device, panel, img);
  panel.addEventListener("keydown", (e) => e.target === panel && onKeyDown(device, e));
  panel.addEventListener("keyup", (e) => e.target === panel && onKeyUp(device, e));
  return panel;
}

// ---- state: instruction, graph, log, end of episode ----------------------------------------------
function render(s) {
  const fresh = !state || s.episode_id !== state.episode_id;
  state = s;
  $("instruction").textContent = s.task.instruction;
  $("task-select").value = s.task.id;
  const pct = Math.round(s.completion_ratio * 100);
  setStatus(`${s.task.id} · step ${s.steps}/${s.max_steps} · return ${s.return.toFixed(2)}`);
  $("progress-bar").style.width = `${pct}%`;
  $("ratio").textContent = `${s.passed}/${s.nodes.length} checks passed · completion ratio ${s.completion_ratio.toFixed(2)}`;
  drawGraph(s.nodes, s.edges);
  $("node-list").replaceChildren(...s.nodes.map(nodeItem));
  document.body.dataset.done = String(s.done);
  document.body.dataset.success = String(s.success);
  document.body.dataset.episode = s.episode_id;
  document.body.dataset.steps = String(s.steps);
  if (fresh) {
    $("banner").hidden = true;
    $("mark-status").textContent = "";
    $("mark-note").value = "";
    for (const r of document.querySelectorAll("input[name=verdict]")) r.checked = false;
    logLine(`episode ${s.episode_id}`);
  }
  if (s.action) {
    const short = (v) => (typeof v === "number" && !Number.isInteger(v) ? Number(v.toFixed(3)) : v);
    const shown = (v) => JSON.stringify(Array.isArray(v) ? v.map(short) : short(v));
    const params = Object.entries(s.action.params).map(([k, v]) => `${k}=${shown(v)}`).join(", ");
    logLine(`${s.action.device}.${s.action.name}(${params})  reward ${(s.reward || 0).toFixed(2)}`);
  }
  if (s.invalid_action) logLine(`invalid: ${s.invalid_action}`, "error");
  if (s.error) logLine(`device error: ${s.error}`, "error");
  if (s.done) {
    const where = s.episode_path ? ` Recorded in ${s.episode_path}.` : "";
    if (s.success) banner("success", `Success: every check passed.${where} Is the task fair?`);
    else banner("failure", `Episode over (${s.termination_reason}).${where} Is the task fair?`);
  }
}

function nodeItem(n) {
  const li = document.createElement("li");
  li.className = `node ${n.status}`;
  li.dataset.status = n.status;
  const badge = document.createElement("span");
  badge.className = `badge ${n.status}`;
  badge.textContent = n.status;
  li.append(badge, n.description);
  if (n.error) li.title = n.error;
  return li;
}

function svgEl(tag, attrs, parent) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (parent) parent.append(el);
  return el;
}

function wrap(text, width, lines) {
  const out = [];
  let line = "";
  for (let word of text.split(/\s+/)) {
    while (word.length > width) {  // a long name (an app package) is cut into pieces
      if (line) out.push(line);
      line = "";
      out.push(word.slice(0, width));
      word = word.slice(width);
    }
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  if (out.length > lines) {
    out.length = lines;
    out[lines - 1] = `${out[lines - 1].slice(0, width - 1)}…`;
  }
  return out;
}

function drawGraph(nodes, edges) {
  const svg = $("graph");
  svg.replaceChildren();
  const rows = [];
  for (const n of nodes) (rows[n.level] ||= []).push(n);
  const width = 310, gap = 8, rowGap = 22, h = 50;
  const pos = {};
  rows.forEach((row, r) => {
    const w = (width - gap * (row.length + 1)) / row.length;
    row.forEach((n, i) => (pos[n.index] = { x: gap + i * (w + gap), y: 4 + r * (h + rowGap), w }));
  });
  const height = 8 + rows.length * (h + rowGap) - rowGap;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const marker = svgEl("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7,
    markerHeight: 7, orient: "auto-start-reverse" }, svgEl("defs", {}, svg));
  svgEl("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#57606a" }, marker);
  for (const [u, v] of edges) {
    const a = pos[u], b = pos[v];
    const x1 = a.x + a.w / 2, y1 = a.y + h, x2 = b.x + b.w / 2, y2 = b.y;
    svgEl("path", { class: "edge", d: `M ${x1} ${y1} C ${x1} ${y1 + 12}, ${x2} ${y2 - 12}, ${x2} ${y2}` }, svg);
  }
  for (const n of nodes) {
    const p = pos[n.index];
    const g = svgEl("g", { class: `node ${n.status}`, "data-status": n.status, "data-index": n.index }, svg);
    svgEl("title", {}, g).textContent = `${n.status}: ${n.description}`;
    svgEl("rect", { x: p.x, y: p.y, width: p.w, height: h }, g);
    wrap(n.description, Math.max(8, Math.floor(p.w / 6)), 3).forEach((line, i) => {
      svgEl("text", { x: p.x + 6, y: p.y + 15 + i * 14 }, g).textContent = line;
    });
  }
}

function logLine(text, cls = "") {
  const li = document.createElement("li");
  li.textContent = text;
  if (cls) li.className = cls;
  const log = $("log");
  log.prepend(li);
  while (log.children.length > 100) log.lastChild.remove();
}

function setStatus(text) {
  $("status").textContent = text;
}

function banner(kind, text) {
  const b = $("banner");
  b.className = kind;
  b.textContent = text;
  b.hidden = false;
}

// ---- buttons -----------------------------------------------------------------------------------
$("new-episode").addEventListener("click", () => rawSend({ type: "reset", task: $("task-select").value || null }));
$("next-task").addEventListener("click", () => {
  const i = tasks.findIndex((t) => state && t.id === state.task.id);
  if (tasks.length) rawSend({ type: "reset", task: tasks[(i + 1) % tasks.length].id });
});
$("root-complete").addEventListener("click", () => act("root", "complete"));
$("root-wait").addEventListener("click", () => act("root", "wait", { seconds: 1 }));
$("root-submit").addEventListener("click", () => {
  const answer = $("root-answer").value.trim();
  if (answer) act("root", "submit", { answer });
});
$("mark-save").addEventListener("click", () => {
  const chosen = document.querySelector("input[name=verdict]:checked");
  if (!chosen) return ($("mark-status").textContent = "choose fair or unclear first");
  rawSend({ type: "mark", verdict: chosen.value, note: $("mark-note").value });
});

connect();
