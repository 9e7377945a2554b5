// SPDX-License-Identifier: MIT
// heel for Node: run commands in a heel sandbox through libheel
// (libheel(3)). A Policy comes from a file, from policy text or from
// builder calls mirroring `heel run`'s options; spawn() starts a command
// under it and gives a Child whose output streams, wait(), kill() and
// close() are promise-based; run() captures the output. The addon
// (src/heel_node.c) keeps every blocking step off the event loop.
'use strict';

const net = require('net');
const os = require('os');
const { EventEmitter } = require('events');
const binding = require('../build/heel.node');

const ERRNO_NAMES = new Map(Object.entries(os.constants.errno).map(([k, v]) => [v, k]));

// What libheel said, with its negative errno value (`errno`) and that
// value's name (`code`: EINVAL for a policy with errors, whose message
// holds the compiler's FILE:LINE:COL diagnostics).
class HeelError extends Error {
  constructor(message, errno) {
    super(message);
    this.name = 'HeelError';
    this.errno = errno;
    this.code = ERRNO_NAMES.get(-errno) || 'EUNKNOWN';
  }
}
binding.setErrorClass(HeelError);

// {NAME: value} or ["NAME=value"] as the latter.
function envList(env, what) {
  if (env === undefined || env === null) return undefined;
  if (Array.isArray(env)) return env.map(String);
  if (typeof env !== 'object') throw new TypeError(`heel: ${what} must be an object or an array`);
  return Object.entries(env).map(([k, v]) => `${k}=${v}`);
}

// The options libheel's heel_spawn_opts carries.
function spawnOpts(o = {}) {
  return {
    env: envList(o.env, 'env'),
    launcherEnv: envList(o.launcherEnv, 'launcherEnv'),
    cwd: o.cwd,
    launcher: o.launcher,
    bestEffort: !!o.bestEffort,
    newSession: !!o.newSession,
    why: !!o.why,
  };
}

class Policy {
  // An empty policy (`heel 1`: isolation default, network deny) for the
  // builder calls; or, from fromFile/fromString, a loaded one.
  constructor(handle) {
    this._h = handle === undefined ? binding.policyNew() : handle;
  }

  // A .heel file (compiled now: a mistake is thrown here) or a compiled
  // .hpol artifact.
  static async fromFile(path) {
    return new Policy(await binding.policyFromFile(String(path)));
  }

  // .heel text; `name` names it in diagnostics (default "<string>").
  static async fromString(text, name) {
    return new Policy(await binding.policyFromString(String(text), name == null ? null : String(name)));
  }

  _call(op, a, b) {
    binding.policyCall(this._h, op, a, b);
    return this;
  }

  isolation(base) { return this._call('isolation', base); }
  grant(path, mode = 'r') { return this._call('grant', path, mode); }
  network(mode) { return this._call('network', mode); }
  allowDomain(pattern) { return this._call('allowDomain', pattern); }
  auditLog(file) { return this._call('auditLog', file); }
  protect(set) { return this._call('protect', set); }
  unprotect(set) { return this._call('unprotect', set); }
  limit(name, value) { return this._call('limit', name, String(value)); }
  envPass(name) { return this._call('envPass', name); }
  envSet(name, value) { return this._call('envSet', name, String(value)); }
  workdir(dir) { return this._call('workdir', dir); }
  gpu(allow = true) { return this._call('gpu', !!allow); }
  nice(steps) { return this._call('nice', steps); }
  ioPriority(priority) { return this._call('ioPriority', priority); }

  // The policy as a spawn with these options would compile it, as .heel
  // text.
  text(opts) { return binding.policyText(this._h, spawnOpts(opts)); }

  // Compiles it as a spawn would: the compiler's warnings (null if none),
  // or a HeelError with its diagnostics.
  check(opts) { return binding.policyCheck(this._h, spawnOpts(opts)); }
}

function signalNumber(sig) {
  if (typeof sig === 'number') return sig;
  const n = os.constants.signals[sig];
  if (n === undefined) throw new HeelError(`heel: no signal ${sig}`, -22);
  return n;
}

// Children still running when Node exits (process.exit() included, which
// runs no environment cleanup) get SIGTERM: heel-exec ends the sandbox
// and removes its working directory rather than run on with no handle.
const running = new Set();
process.on('exit', () => {
  for (const c of running) {
    try { binding.kill(c._h, os.constants.signals.SIGTERM); } catch (e) { /* ended */ }
  }
});

// A running heel-exec. `status` is null until it has ended, then the
// command's exit status as heel-exec reports it (its own; 128+N for
// signal N; 125 when heel-exec refused or failed, with why on stderr;
// 126/127 when the command could not be run or found).
class Child extends EventEmitter {
  constructor(r) {
    super();
    this._h = r.handle;
    this.pid = r.pid;
    this.status = null;
    this.stdin = r.stdinFd >= 0 ? new net.Socket({ fd: r.stdinFd, readable: false, writable: true }) : null;
    this.stdout = r.stdoutFd >= 0 ? new net.Socket({ fd: r.stdoutFd, readable: true, writable: false }) : null;
    this.stderr = r.stderrFd >= 0 ? new net.Socket({ fd: r.stderrFd, readable: true, writable: false }) : null;
    running.add(this);
    this._ended = new Promise((resolve, reject) => {
      binding.watch(this._h, (status, err) => {
        running.delete(this);
        if (err) {
          reject(err);
          return;
        }
        this.status = status;
        resolve(status);
        this.emit('exit', status);
      });
    });
    // A failed wait is the caller's to see through wait(), not an
    // unhandled rejection when nobody waits.
    this._ended.catch(() => {});
  }

  // Resolves with the exit status once heel-exec has ended.
  wait() { return this._ended; }

  // After the end of a child spawned with {why: true}: each distinct
  // action the sandbox refused, as an object (heel(5), the audit sink's
  // "denial/1" lines: op, path or host, comm, wall, rule with its
  // file:line, the option and policy line that allow it, count); [] when
  // nothing was refused. A HeelError: EBUSY before the end, EINVAL
  // without why.
  denials() {
    return binding.denials(this._h).split('\n').filter((l) => l).map((l) => JSON.parse(l));
  }

  // Sends a signal (name or number) to heel-exec, which forwards SIGINT,
  // SIGTERM, SIGHUP and SIGQUIT to the whole sandbox. A HeelError (ESRCH)
  // once it has ended.
  kill(sig = 'SIGTERM') { binding.kill(this._h, signalNumber(sig)); }

  // Ends the sandbox as libheel's heel_child_free does (SIGTERM, then
  // SIGKILL after 5 s), off the event loop; resolves with the status.
  close() { return binding.close(this._h); }

  // Whether a running child keeps Node's event loop alive (it does by
  // default, as child_process's do), and with it its pipes; one let go
  // is ended, as by close(), when Node's environment ends.
  // (and its pipes with it).
  ref() { return this._ref(true); }
  unref() { return this._ref(false); }

  _ref(on) {
    binding.ref(this._h, on);
    for (const s of [this.stdin, this.stdout, this.stderr]) if (s) s[on ? 'ref' : 'unref']();
    return this;
  }
}

// A stdio choice as a descriptor for the addon: -2 a pipe, -1 /dev/null.
function stdioFd(v, i, dflt) {
  if (v === undefined) v = dflt;
  if (v === 'pipe') return -2;
  if (v === 'ignore' || v === null) return -1;
  if (v === 'inherit') return i;
  if (Number.isInteger(v) && v >= 0) return v;
  throw new TypeError(`heel: stdio ${['stdin', 'stdout', 'stderr'][i]} must be 'pipe', 'ignore', 'inherit' or a descriptor`);
}

function checkArgs(policy, argv) {
  if (!(policy instanceof Policy)) throw new TypeError('heel: the first argument must be a Policy');
  if (!Array.isArray(argv) || argv.length === 0) throw new TypeError('heel: argv must be a non-empty array');
  return argv.map(String);
}

// Starts argv under the policy. opts: stdin ('ignore' by default),
// stdout and stderr ('pipe' by default: Child.stdout and .stderr are
// readable streams) as 'pipe', 'ignore', 'inherit' or a descriptor; env
// (additions, {NAME: value}); cwd; launcher (heel-exec's path; default the
// one installed with libheel); launcherEnv; bestEffort; newSession; why
// (heel-exec --why: the refusals explained on stderr at the end and
// returned by child.denials()).
async function spawn(policy, argv, opts = {}) {
  const args = checkArgs(policy, argv);
  const o = spawnOpts(opts);
  o.stdinFd = stdioFd(opts.stdin, 0, 'ignore');
  o.stdoutFd = stdioFd(opts.stdout, 1, 'pipe');
  o.stderrFd = stdioFd(opts.stderr, 2, 'pipe');
  return new Child(await binding.spawn(policy._h, args, o));
}

// Runs argv to its end and captures its output (libheel's
// heel_run_capture, on libuv's pool: each run in progress holds one of
// its threads). opts as spawn's, without stdout and stderr, plus
// maxBytes (kept of each stream, default 1 MiB), timeout (ms; the sandbox
// is ended when it runs out) and encoding ('utf8', or 'buffer').
// Resolves with {status, stdout, stderr, timedOut, stdoutTruncated,
// stderrTruncated}; the command's failure is in status, not a rejection.
async function run(policy, argv, opts = {}) {
  const args = checkArgs(policy, argv);
  const o = spawnOpts(opts);
  o.stdinFd = stdioFd(opts.stdin, 0, 'ignore');
  if (o.stdinFd === -2) throw new TypeError("heel: run() takes no stdin 'pipe' (use spawn)");
  const max = opts.maxBytes === undefined ? 1 << 20 : opts.maxBytes;
  const timeout = opts.timeout === undefined || opts.timeout === null ? -1 : opts.timeout;
  const r = await binding.capture(policy._h, args, o, max, timeout);
  const enc = opts.encoding === undefined ? 'utf8' : opts.encoding;
  return {
    status: r.status,
    stdout: enc === 'buffer' ? r.stdout : r.stdout.toString(enc),
    stderr: enc === 'buffer' ? r.stderr : r.stderr.toString(enc),
    timedOut: !!r.timedOut,
    stdoutTruncated: !!r.stdoutTruncated,
    stderrTruncated: !!r.stderrTruncated,
  };
}

module.exports = {
  HeelError,
  Policy,
  Child,
  spawn,
  run,
  version: binding.version(),
};
