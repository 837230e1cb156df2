#!/usr/bin/env node
// rspconf protocol-1 driver for rsp-js 1.3.5 (https://www.npmjs.com/package/rsp-js), pinned in
// package-lock.json.  It feeds each case's events to a fresh RSPEngine in application time and reports
// what the engine emits; it does not correct the engine (see README.md for what rsp-js does).
//
// - The kit's RSP-QL is rewritten into the subset rsp-js's line-based parser accepts: "ON STREAM",
//   RANGE/STEP as numbers of ms, "RStream"/"IStream"/"DStream", WINDOW at the start of a line.
// - rsp-js prints its own logs with console.log; they go to stderr so stdout stays the protocol channel.
// - Bindings are emitted one by one and asynchronously; the driver counts the engine's running R2R
//   evaluations (by observing R2ROperator.execute) and, after each event, waits until none runs.  The
//   bindings emitted meanwhile form one report, stamped with the time of the event that triggered it.
"use strict";

const { createInterface } = require("node:readline");
const path = require("node:path");

const fs = require("node:fs");
const os = require("node:os");
// rsp-js's logger appends to ./logs/*.log: give it a private working folder
process.chdir(fs.mkdtempSync(path.join(os.tmpdir(), "rspconf-rspjs-")));
fs.mkdirSync("logs");
for (const level of ["log", "info", "debug", "warn"]) console[level] = (...args) => console.error(...args);
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

let rsp, N3, version;
try {
  rsp = require("rsp-js");
  N3 = require("n3");
  version = require(path.join(path.dirname(require.resolve("rsp-js")), "..", "package.json")).version;
} catch (err) {
  console.error(`rsp-js is not installed: run "npm ci" in ${__dirname} (${err.message})`);
  process.exit(3);
}
const { DataFactory } = N3;

const PROFILE = {
  // read off rsp-js's source (dist/operators/s2r.js, dist/rsp.js) and checked by experiment (README.md)
  t0: "aligned",            // windows close at multiples of the slide: [kβ − ω, kβ), partial first windows
  report: ["window-close", "non-empty-content"],
  tick: "tuple-driven",     // a window reports when the first later element arrives (t > c)
  granularity: "element",
  grain: "single",          // of the windows closed by one element, only the latest reports
  empty: false,             // an evaluation without bindings emits nothing
  boundary: "[o,c)",
  close: ">",
  end_of_stream: "drop",    // no flush: the last windows never report
};

function rspjsQuery(text) {
  const iso = (d) => {
    const m = d.match(/^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/i);
    if (!m) throw new Error(`unsupported duration ${d}`);
    return Math.round(((+m[1] || 0) * 3600 + (+m[2] || 0) * 60 + (+m[3] || 0)) * 1000);
  };
  return text
    .replace(/REGISTER\s+(RSTREAM|ISTREAM|DSTREAM)\s/i, (_, op) => `REGISTER ${op[0].toUpperCase()}Stream `)
    .replace(/FROM NAMED WINDOW\s+(\S+)\s+ON\s+(?:STREAM\s+)?(\S+)\s+\[RANGE\s+(\S+)\s+STEP\s+(\S+)\]/i,
      (_, w, s, r, st) => `FROM NAMED WINDOW ${w} ON STREAM ${s} [RANGE ${iso(r)} STEP ${iso(st)}]`)
    .split("\n").map((line) => line.trim()).join("\n");
}

function term(line) {
  // one N-Triples line -> a quad in the default graph (rsp-js moves it into the window's graph)
  const quads = new N3.Parser({ format: "N-Triples" }).parse(line);
  if (quads.length !== 1) throw new Error(`not one triple: ${line}`);
  return quads[0];
}

function toJson(t) {
  if (t.termType === "NamedNode") return { type: "uri", value: t.value };
  if (t.termType === "BlankNode") return { type: "bnode", value: t.value };
  const out = { type: "literal", value: t.value };
  if (t.language) out["xml:lang"] = t.language;
  else if (t.datatype && t.datatype.value !== "http://www.w3.org/2001/XMLSchema#string") out.datatype = t.datatype.value;
  return out;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

async function run(msg) {
  const text = rspjsQuery(msg.query);
  const engine = new rsp.RSPEngine(text);
  const streams = engine.get_all_streams();
  if (streams.length !== 1) return { seq: msg.seq, unsupported: `rsp-js parsed ${streams.length} streams from the query` };
  const stream = engine.getStream(streams[0]);
  // background data: the kit's RSP-QL puts the whole pattern inside the WINDOW block, so static
  // triples go into the window's graph, where that block looks (rsp-js unions them with every window)
  const windowGraph = DataFactory.namedNode(engine.windows[0].name);
  for (const line of msg.static) {
    const q = term(line);
    engine.addStaticData(DataFactory.quad(q.subject, q.predicate, q.object, windowGraph));
  }
  let running = 0;
  const execute = engine.r2r.execute.bind(engine.r2r);
  engine.r2r.execute = (container) => {
    running += 1;
    return execute(container).then((bindings) => {
      bindings.on("end", () => { running -= 1; });
      bindings.on("error", () => { running -= 1; });
      return bindings;
    }, (err) => { running -= 1; throw err; });
  };
  const emitter = engine.register();
  let pending = [];
  const claimed = [];
  emitter.on("RStream", (object) => {
    const solution = {};
    for (const [variable, value] of object.bindings) solution[variable.value] = toJson(value);
    pending.push(solution);
    claimed.push([object.timestamp_from, object.timestamp_to]);
  });
  const reports = [];
  const settle = async (t) => {
    for (let i = 0; i < 3 || running > 0; i++) {
      await tick();
      if (i > 200000) throw new Error("rsp-js evaluation did not finish");
    }
    if (pending.length) reports.push({ tau: t, solutions: pending });
    pending = [];
  };
  for (const element of msg.elements) {
    for (const line of element.triples) stream.add(term(line), element.t);
    await settle(element.t);
  }
  if (claimed.length) console.error(`rsp-js claimed windows (first 5): ${JSON.stringify(claimed.slice(0, 5))}`);
  return { seq: msg.seq, reports };
}

(async () => {
  for await (const line of createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    const msg = JSON.parse(line);
    if (msg.cmd === "start") {
      send({ protocol: 1, engine: { name: "rsp-js", version, dialect: "rspql", alignment: "time",
        capabilities: ["time-window", "sliding-window", "filter", "aggregates", "group-by", "optional", "union",
          "rstream", "istream", "dstream", "event-graphs", "joins-across-time", "static-data", "empty-windows",
          "subquery", "order-by"],  // no ask/construct: rsp-js evaluates with Comunica's queryBindings only
        profile: PROFILE } });
    } else if (msg.cmd === "run") {
      try {
        send(await run(msg));
      } catch (err) {
        send({ seq: msg.seq, error: String((err && err.stack) || err) });
      }
    } else if (msg.cmd === "stop") {
      process.exit(0);
    }
  }
})();
