// Shared helpers of the Harbormaster web client (plain JS, no build step).
"use strict";
window.HM = window.HM || {};
HM.el = function (tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
};
HM.seat = (s) => HM.el("span", { class: "seat s" + s, title: "seat " + s });
HM.api = async function (path, options) {
  const response = await fetch(path, options);
  let body = null;
  try { body = await response.json(); } catch (e) { body = null; }
  return { status: response.status, body };
};
HM.kv = function (pairs) {
  const box = HM.el("div", { class: "kv" });
  for (const [k, v] of pairs) box.append(HM.el("span", {}, k), HM.el("b", {}, v === null || v === undefined ? "—" : String(v)));
  return box;
};
HM.tree = function (value, name) {
  if (value === null || typeof value !== "object") {
    return HM.el("div", {}, name !== undefined ? HM.el("span", { class: "k" }, name + ": ") : "", JSON.stringify(value));
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  const short = entries.length === 0 ? (Array.isArray(value) ? "[]" : "{}") : (Array.isArray(value) ? `[${entries.length}]` : "{…}");
  const box = HM.el("details", {}, HM.el("summary", {}, name !== undefined ? HM.el("span", { class: "k" }, name + " ") : "", short));
  for (const [k, v] of entries) box.append(HM.tree(v, k));
  return box;
};
HM.describe = function (command) {
  const fields = Object.entries(command).filter(([k]) => k !== "type").map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return `${command.type}(${fields.join(", ")})`;
};
HM.Boards = HM.Boards || {};
