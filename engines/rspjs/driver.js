#!/usr/bin/env node
// rspconf protocol-1 driver for rsp-js 1.3.5 (https://www.npmjs.com/package/rsp-js), pinned in
// package-lock.json.  It feeds each case's events to a fresh RSPEngine in application time and reports
// what the engine emits; it does not correct the engine (see README.md for what rsp-js does).
//
// - The query goes to rsp-js exactly as the kit rendered it.  The driver declares the syntax rsp-js's
//   line-based parser reads (start answer, "syntax": ON STREAM, window sizes in ms, each WINDOW block on a
//   line of its own), so the kit renders cases that way; the kit's syntax family still sends the standard
//   form, and what rsp-js makes of that is rsp-js's answer.  The driver rewrites nothing.
// - rsp-js prints its own logs with console.log; they go to stderr so stdout stays the protocol channel.
// - Each R2R evaluation of rsp-js (one call of R2ROperator.execute) is one report: the bindings it
//   streams out.  The report carries rsp-js's own time stamps, timestamp_from/timestamp_to of its first
//   binding (a per-binding counter: rsp-js adds one slide to its t0 for every binding it emits); they do
//   not say when or for which window the report was made, so the driver declares alignment "order".
"use strict";

const { createInterface } = require("node:readline");
const path = require("node:path");

const fs = require("node:fs");
const os = require("node:os");
// rsp-js's logger appends to ./logs/*.log: give it a private working folder, removed when the driver exits
const workdir = fs.mkdtempSync(path.join(os.tmpdir(), "rspconf-rspjs-"));
process.chdir(workdir);
fs.mkdirSync("logs");
const cleanUp = () => { try { process.chdir(os.tmpdir()); fs.rmSync(workdir, { recursive: true, force: true }); } catch (_) { /* gone */ } };
process.on("exit", cleanUp);
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(sig, () => process.exit(0));
for (const level of ["log", "info", "debug", "warn"]) console[level] = (...args) => console.error(...args);
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

// `--modules DIR`: load rsp-js from another pinned install (engines/rspjs/versions/<v>/node_modules)
const at = process.argv.indexOf("--modules");
const modules = at > 0 ? process.argv[at + 1] : path.join(__dirname, "node_modules");
const load = (name) => require(require.resolve(name, { paths: [modules] }));
let rsp, N3, version;
try {
  rsp = load("rsp-js");
  N3 = load("n3");
  version = require(path.join(path.dirname(require.resolve("rsp-js", { paths: [modules] })), "..", "package.json")).version;
} catch (err) {
  console.error(`rsp-js is not installed in ${modules}: run "npm ci --prefix ${path.dirname(modules)}" (${err.message})`);
  process.exit(3);
}
const { DataFactory } = N3;

const PROFILE = {
  // read off rsp-js's source (dist/operators/s2r.js, dist/rsp.js) and checked by experiment (README.md)
  t0: "aligned",            // windows close at multiples of the slide: [kβ − ω, kβ), partial first windows
  report: ["window-close", "non-empty-content"],
  tick: "tuple-driven",     // a window reports when the first later element arrives (t > c); the elements of
                            // one timestamp are one tick (s2r.js emits only if timestamp > this.time)
  grain: "single-held",     // of the windows one element closes, the latest that holds an element reports: a
                            // window exists only once an element fell in it (s2r.js: scope(), max_window)
  empty: false,             // an evaluation without bindings emits nothing
  boundary: "[o,c)",
  close: ">",
  end_of_stream: "drop",    // no flush: the last windows never report
  instants: "any-close",    // among several windows, each evaluates the query when it closes (rsp.js register():
                            // every window subscribes on its own; the others lend their current content)
};

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

// Set a case up in a fresh RSPEngine: streams, static data, and the capture of its evaluations (one
// report per R2R evaluation: the bindings its stream emits, with rsp-js's own time stamps).  Returns
// {error} when rsp-js parsed no window it can use (running on would crash inside rsp-js).
function prepare(msg) {
  const engine = new rsp.RSPEngine(msg.query);
  const streams = engine.get_all_streams();
  if (streams.length === 0) {
    const windows = engine.windows.map((w) => ({ name: w.name, width: w.width, slide: w.slide }));
    return { error: `rsp-js parsed ${streams.length} streams and windows ${JSON.stringify(windows)} ` +
      "from the query (rsp-js 1.3.5 reads only 'FROM NAMED WINDOW <w> ON STREAM <s> [RANGE <ms> STEP <ms>]' lines)" };
  }
  const bad = engine.windows.filter((w) => !Number.isFinite(w.width) || !Number.isFinite(w.slide));
  if (bad.length) console.error(`rsp-js read the window sizes as ${JSON.stringify(bad.map((w) => [w.width, w.slide]))}`);
  // each element goes into the stream it belongs to: its own (several streams) or the query's one; a
  // stream rsp-js did not parse from the query is an error that names it, not a guess
  const streamOf = (element) => {
    const name = element.stream || msg.stream_iri;
    if (streams.includes(name)) return engine.getStream(name);
    if (!element.stream && streams.length === 1) return engine.getStream(streams[0]);
    throw new Error(`the element at t=${element.t} belongs to stream <${name}>, but rsp-js parsed the streams ` +
      `${JSON.stringify(streams)} from the query`);
  };
  // background data: with one window the kit's RSP-QL puts the whole pattern inside the WINDOW block, so
  // static triples go into the window's graph, where that block looks (rsp-js unions them with every
  // window); with several, the static patterns stand outside every WINDOW block: the default graph
  const windowGraph = msg.window && msg.window.windows ? DataFactory.defaultGraph()
    : DataFactory.namedNode(engine.windows[0].name);
  for (const line of msg.static) {
    const q = term(line);
    engine.addStaticData(DataFactory.quad(q.subject, q.predicate, q.object, windowGraph));
  }
  const evaluations = [];
  let current = null;
  const execute = engine.r2r.execute.bind(engine.r2r);
  engine.r2r.execute = (container) => {
    const evaluation = { solutions: [], from: null, to: null, done: false };
    evaluations.push(evaluation);
    return execute(container).then((bindings) => {
      current = evaluation;
      bindings.on("end", () => { evaluation.done = true; });
      bindings.on("error", () => { evaluation.done = true; });
      return bindings;
    }, (err) => { evaluation.done = true; throw err; });
  };
  const emitter = engine.register();
  emitter.on("RStream", (object) => {
    const target = current || evaluations[evaluations.length - 1];
    if (!target) return;
    const solution = {};
    for (const [variable, value] of object.bindings) solution[variable.value] = toJson(value);
    if (target.from === null) { target.from = object.timestamp_from; target.to = object.timestamp_to; }
    target.solutions.push(solution);
  });
  const settle = async () => {
    for (let i = 0; i < 3 || evaluations.some((e) => !e.done); i++) {
      await tick();
      if (i > 200000) throw new Error("rsp-js evaluation did not finish");
    }
  };
  const feed = async (element) => {
    const stream = streamOf(element);
    for (const line of element.triples) stream.add(term(line), element.t);
    await settle();
  };
  // live: add as it comes and let rsp-js's evaluations run between arrivals, as an application would
  const add = (element) => {
    const stream = streamOf(element);
    for (const line of element.triples) stream.add(term(line), element.t);
  };
  return { evaluations, feed, settle, add };
}

// rsp-js streams nothing for an evaluation without bindings (its empty relations are not reported)
const asReport = (e) => ({
  tau: Number.isFinite(e.to) ? e.to : null,
  window: Number.isFinite(e.from) && Number.isFinite(e.to) ? [e.from, e.to] : null,
  solutions: e.solutions,
});

async function run(msg) {
  const setup = prepare(msg);
  if (setup.error) return { seq: msg.seq, error: setup.error };
  for (const element of msg.elements) await setup.feed(element);
  return { seq: msg.seq, reports: setup.evaluations.filter((e) => e.solutions.length).map(asReport) };
}

// Live mode (rspconf load): elements are added as the kit pushes them, without waiting for rsp-js's
// evaluations (they run between arrivals, as in an application); each finished evaluation with bindings
// is sent at once.  A heartbeat (a push without elements) means nothing to rsp-js: its windows
// close only when an element arrives.  At the end nothing is flushed (rsp-js has no end of stream).
let live = null;
function sendFinished(final) {
  while (live.sent < live.setup.evaluations.length) {
    const e = live.setup.evaluations[live.sent];
    if (!e.done && !final) break;
    if (e.solutions.length) send({ seq: live.seq, report: asReport(e) });
    live.sent += 1;
  }
}

(async () => {
  for await (const line of createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    const msg = JSON.parse(line);
    if (msg.cmd === "start") {
      send({ protocol: 1, engine: { name: "rsp-js", version, dialect: "rspql", alignment: "order", live: true,
        // what rsp-js says of itself: its npm page; its source, the repository of the package's author
        homepage: "https://www.npmjs.com/package/rsp-js", source: "https://github.com/pbonte/RSP-JS",
        issues: "https://github.com/pbonte/RSP-JS/issues",
        capabilities: ["time-window", "sliding-window", "filter", "aggregates", "group-by", "optional", "union",
          "rstream", "event-graphs", "joins-across-time", "static-data", "empty-windows", "subquery", "order-by", "property-paths", "group-concat",
          "multi-window"],  // several FROM NAMED WINDOW clauses, each on its stream; no count windows, no
          // time-annotated data (rsp-js has neither)
        // no ask/construct: rsp-js evaluates with Comunica's queryBindings only; no istream/dstream:
        // REGISTER IStream/DStream is parsed and ignored (rsp-js always subscribes to RStream)
        profile: PROFILE,
        // what rsp-js's parser reads instead of standard RSP-QL (dist/rspql.js; README.md#parser)
        syntax: ["window-ms", "on-stream", "window-line"] } });
    } else if (msg.cmd === "run") {
      try {
        send(await run(msg));
      } catch (err) {
        send({ seq: msg.seq, error: String((err && err.stack) || err) });
      }
    } else if (msg.cmd === "live" || msg.cmd === "push" || msg.cmd === "end") {
      try {
        if (msg.cmd === "live") {
          const setup = prepare(msg);
          if (setup.error) { send({ seq: msg.seq, error: setup.error }); continue; }
          live = { seq: msg.seq, setup, sent: 0 };
          send({ seq: msg.seq, ready: true });
        } else if (msg.cmd === "push") {
          for (const element of msg.elements) live.setup.add(element);
          await tick();  // the event loop runs rsp-js's pending evaluations before the next line is read
          sendFinished(false);
        } else {
          await live.setup.settle();
          sendFinished(true);
          send({ seq: msg.seq, ended: true });
          live = null;
        }
      } catch (err) {
        send({ seq: msg.seq, error: String((err && err.stack) || err) });
      }
    } else if (msg.cmd === "stop") {
      process.exit(0);
    }
  }
})();
