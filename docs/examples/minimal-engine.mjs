#!/usr/bin/env node
// A complete, minimal rspconf engine in JavaScript, speaking protocol 1 (docs/protocol.md).
// It answers SELECT queries with ONE triple pattern, on time-based windows with t0 = 0, each window
// reporting at its close with its full content, Rstream, empty results reported, trailing windows
// flushed at the end of the stream; also live (elements pushed in wall-clock time, rspconf load).
// Anything else is refused as "unsupported".
// Run it through the kit:  rspconf check-adapter "cmd:node docs/examples/minimal-engine.mjs"
import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const TERM = /<[^>]*>|_:\S+|"(?:[^"\\]|\\.)*"(?:@[A-Za-z0-9-]+|\^\^<[^>]*>)?|\?\w+|[A-Za-z][\w-]*:[\w-]*|\ba\b/g;

function toJson(term) { // an N-Triples term -> a SPARQL 1.1 JSON results term
  if (term.startsWith("<")) return { type: "uri", value: term.slice(1, -1) };
  if (term.startsWith("_:")) return { type: "bnode", value: term.slice(2) };
  const m = term.match(/^"((?:[^"\\]|\\.)*)"(?:@([A-Za-z0-9-]+)|\^\^<([^>]*)>)?$/);
  const value = JSON.parse(`"${m[1]}"`);
  if (m[2]) return { type: "literal", value, "xml:lang": m[2] };
  return m[3] ? { type: "literal", value, datatype: m[3] } : { type: "literal", value };
}

function parsePattern(r2r) { // "SELECT ?a ?b WHERE { s p o }" with PREFIX lines, or null
  const prefixes = {};
  for (const m of r2r.matchAll(/PREFIX\s+([\w-]*):\s*<([^>]*)>/gi)) prefixes[m[1]] = m[2];
  const body = r2r.replace(/PREFIX\s+[\w-]*:\s*<[^>]*>/gi, "").trim();
  const m = body.match(/^SELECT\s+((?:\?\w+\s*)+)WHERE\s*\{([^{}]*)\}\s*$/is);
  if (!m) return null;
  const terms = m[2].replace(/\s*\.\s*$/, "").match(TERM) || [];
  if (terms.length !== 3) return null;
  const expand = (t) => t === "a" ? "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
    : (t.startsWith("?") || t.startsWith("<") || t.startsWith('"')) ? t
    : prefixes[t.split(":")[0]] !== undefined ? `<${prefixes[t.split(":")[0]]}${t.split(":").slice(1).join(":")}>` : null;
  const pattern = terms.map(expand);
  if (pattern.includes(null)) return null;
  return { vars: m[1].trim().split(/\s+/).map((v) => v.slice(1)), pattern };
}

function solve(query, items, o, c) { // the window [o, c)'s solutions of the one pattern; the window is a graph,
  const solutions = [], seen = new Set(); // so a triple that two elements carry counts once
  for (const { t, terms } of items) {
    if (t < o || t >= c || seen.has(terms.join(" "))) continue;
    seen.add(terms.join(" "));
    const binding = {};
    const ok = query.pattern.every((p, i) => p.startsWith("?")
      ? (binding[p.slice(1)] === undefined || binding[p.slice(1)] === terms[i]) && (binding[p.slice(1)] = terms[i])
      : p === terms[i]);
    if (ok) solutions.push(Object.fromEntries(query.vars.filter((v) => binding[v]).map((v) => [v, toJson(binding[v])])));
  }
  return { tau: c, window: [o, c], solutions };
}

function refusal(msg, query) { // why this engine cannot run the request, or null
  if (!query) return "only SELECT with one triple pattern";
  if (msg.r2s !== "rstream") return `R2S ${msg.r2s}`;
  return msg.window.range === undefined ? "only time windows" : null;
}

const itemsOf = (elements) => elements.flatMap((e) => e.triples.map((line) => ({ t: e.t, terms: line.match(TERM).slice(0, 3) })));

function run(msg) {
  const query = parsePattern(msg.r2r), why = refusal(msg, query);
  if (why) return { seq: msg.seq, unsupported: why };
  const { range, slide } = msg.window, items = itemsOf(msg.elements), reports = [];
  const last = msg.elements.length ? msg.elements[msg.elements.length - 1].t : -1;
  for (let o = 0; o <= last; o += slide) reports.push(solve(query, items, o, o + range));
  return { seq: msg.seq, reports };
}

// Live mode: elements are pushed when due in wall-clock time (an empty push is a heartbeat: time has
// reached t); each window is reported as soon as time reaches its close, the rest at the end.
let live = null;
function report(upto) { // report the windows that closed by `upto` and started by the last element
  const { msg, query, items } = live, { range, slide } = msg.window;
  while (live.last !== null && live.next * slide <= live.last && live.next * slide + range <= upto) {
    send({ seq: msg.seq, report: solve(query, items, live.next * slide, live.next * slide + range) });
    live.next += 1;
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const msg = JSON.parse(line);
  if (msg.cmd === "start") {
    send({ protocol: 1, engine: { name: "minimal-js", version: "1", dialect: "sparql", alignment: "window", live: true,
      capabilities: ["time-window", "sliding-window", "rstream", "empty-windows"],
      profile: { t0: 0, report: ["window-close"], tick: "time-driven", grain: "multiple", empty: true,
                 boundary: "[o,c)", close: ">=", end_of_stream: "flush" } } });
  } else if (msg.cmd === "run") {
    try { send(run(msg)); } catch (err) { send({ seq: msg.seq, error: String(err && err.stack || err) }); }
  } else if (msg.cmd === "live") {
    const query = parsePattern(msg.r2r), why = refusal(msg, query);
    if (why) send({ seq: msg.seq, unsupported: why });
    else { live = { msg, query, items: [], next: 0, last: null }; send({ seq: msg.seq, ready: true }); }
  } else if (msg.cmd === "push") {
    live.items.push(...itemsOf(msg.elements));
    if (msg.elements.length) live.last = msg.t;
    report(msg.t);
  } else if (msg.cmd === "end") {
    report(Infinity);
    send({ seq: msg.seq, ended: true });
    live = null;
  } else if (msg.cmd === "stop") {
    process.exit(0);
  }
}
