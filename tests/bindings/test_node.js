// SPDX-License-Identifier: MIT
// The Node package (packaging/node) run for real by tests/bindings/run.sh,
// as root and as uid 65534: each API against the heel-exec named by
// HEEL_EXEC, asserting on effects (what the command printed, the file a
// refused write did not create and a granted one did, no process left,
// the event loop kept turning). Prints "ok NAME" or "FAIL NAME: why".
// Usage: HEEL_EXEC=... SCRATCH=DIR node test_node.js
'use strict';

const assert = require('assert');
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const heel = require('heel');

const launcher = process.env.HEEL_EXEC;
const scratch = process.env.SCRATCH;
const opts = { launcher };
const FROM = ['sh', '-c', 'printf %s "$FROM"'];

// Processes whose command line is exactly `sleep ARG`.
function sleeping(arg) {
  let n = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1') === `sleep\0${arg}\0`) n++;
    } catch (e) { /* gone */ }
  }
  return n;
}

const cases = {
  async policy_from_file() {
    const f = path.join(scratch, 'p.heel');
    fs.writeFileSync(f, 'heel 1\nenv set "FROM" "file"\n');
    const r = await heel.run(await heel.Policy.fromFile(f), FROM, opts);
    assert.strictEqual(r.stdout, 'file', r.stderr);
  },

  async policy_from_string() {
    const p = await heel.Policy.fromString('heel 1\nenv set "FROM" "string"\n', 's.heel');
    const r = await heel.run(p, FROM, opts);
    assert.strictEqual(r.stdout, 'string', r.stderr);
  },

  async policy_from_builder_calls() {
    const p = new heel.Policy().isolation('strict').limit('open-files', 256).envSet('FROM', 'builder');
    assert.match(p.text(), /env set "FROM" "builder"/);
    assert.strictEqual(p.check(), null);
    // The limit holds inside (and the control: 256 is not the default).
    const r = await heel.run(p, ['sh', '-c', 'printf "%s " "$FROM"; ulimit -n'], opts);
    assert.strictEqual(r.stdout, 'builder 256\n', r.stderr);
    const d = await heel.run(new heel.Policy(), ['sh', '-c', 'ulimit -n'], opts);
    assert.notStrictEqual(d.stdout, '256\n');
  },

  async bad_policy_string_is_an_exception_with_file_line_col() {
    await assert.rejects(heel.Policy.fromString('heel 1\nbogus x\n', 'bad.heel'), (e) => {
      assert(e instanceof heel.HeelError, String(e));
      assert.strictEqual(e.code, 'EINVAL');
      assert.match(e.message, /^bad\.heel:2:1: error: /);
      return true;
    });
    // A bad builder value too, at the call.
    assert.throws(() => new heel.Policy().limit('memory', 'lots'), (e) => e.code === 'EINVAL');
    // The control: the same text without the mistake loads.
    await heel.Policy.fromString('heel 1\n', 'good.heel');
  },

  async capture() {
    const r = await heel.run(new heel.Policy(), ['sh', '-c', 'echo out; echo err >&2; exit 3'], opts);
    assert.deepStrictEqual([r.status, r.stdout, r.stderr, r.timedOut], [3, 'out\n', 'err\n', false]);
    const t = await heel.run(new heel.Policy(), ['sh', '-c', 'head -c 5000 /dev/zero'],
      { ...opts, maxBytes: 100, encoding: 'buffer' });
    assert(Buffer.isBuffer(t.stdout) && t.stdout.length === 100 && t.stdoutTruncated);
  },

  async capture_timeout_ends_the_sandbox() {
    const t0 = Date.now();
    const r = await heel.run(new heel.Policy(), ['sleep', '30.25'], { ...opts, timeout: 500 });
    assert(r.timedOut, JSON.stringify(r));
    assert(Date.now() - t0 < 20000);
    assert.strictEqual(sleeping('30.25'), 0);
  },

  async stream_and_wait() {
    const c = await heel.spawn(new heel.Policy(), ['sh', '-c', 'echo one; sleep 0.2; echo two >&2; exit 7'], opts);
    const lines = [];
    const errs = [];
    const rl = readline.createInterface({ input: c.stdout });
    c.stderr.on('data', (d) => errs.push(String(d)));
    for await (const l of rl) lines.push(l);
    assert.strictEqual(await c.wait(), 7);
    assert.strictEqual(c.status, 7);
    assert.deepStrictEqual(lines, ['one']);
    await new Promise((r) => (c.stderr.readableEnded ? r() : c.stderr.on('end', r)));
    assert.strictEqual(errs.join(''), 'two\n');
  },

  async stdin_pipe() {
    const c = await heel.spawn(new heel.Policy(), ['cat'], { ...opts, stdin: 'pipe' });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.stdin.end('ping\n');
    assert.strictEqual(await c.wait(), 0);
    await new Promise((r) => (c.stdout.readableEnded ? r() : c.stdout.on('end', r)));
    assert.strictEqual(out, 'ping\n');
  },

  async kill_ends_the_sandbox() {
    const c = await heel.spawn(new heel.Policy(), ['sleep', '30.5'], { ...opts, stdout: 'ignore', stderr: 'ignore' });
    for (let i = 0; i < 100 && sleeping('30.5') === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.strictEqual(sleeping('30.5'), 1, 'the command did not start');
    c.kill('SIGTERM');
    assert.strictEqual(await c.wait(), 128 + 15);
    assert.strictEqual(sleeping('30.5'), 0, 'the command outlived the kill');
    assert.throws(() => c.kill(), (e) => e.code === 'ESRCH');
  },

  async close_ends_the_sandbox() {
    const c = await heel.spawn(new heel.Policy(), ['sleep', '30.75'], opts);
    for (let i = 0; i < 100 && sleeping('30.75') === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.strictEqual(await c.close(), 128 + 15);
    assert.strictEqual(await c.wait(), 128 + 15);
    assert.strictEqual(sleeping('30.75'), 0);
  },

  async wait_does_not_block_the_event_loop() {
    let ticks = 0;
    const t = setInterval(() => ticks++, 10);
    const c = await heel.spawn(new heel.Policy(), ['sleep', '1'], opts);
    const before = ticks;
    await c.wait();
    clearInterval(t);
    // About 100 ticks in the second; 10 on the most loaded machine.
    assert(ticks - before >= 10, `${ticks - before} ticks during the wait`);
  },

  async refusals_are_returned_with_why() {
    const target = path.join(scratch, 'outside-why');
    const c = await heel.spawn(new heel.Policy(), ['sh', '-c', `echo x > ${target}; echo y > inside`],
      { ...opts, why: true, stdout: 'ignore', stderr: 'ignore' });
    await c.wait();
    assert.ok(!fs.existsSync(target), `${target} was written`);
    const d = c.denials();
    assert.deepStrictEqual(d.map((x) => x.path), [target]);
    assert.strictEqual(d[0].type, 'denial/1');
    assert.strictEqual(d[0].wall, 'read-only mount');
    await c.close();
    const n = await heel.spawn(new heel.Policy(), ['true'], { ...opts, stdout: 'ignore', stderr: 'ignore' });
    await n.wait();
    assert.throws(() => n.denials(), (e) => e instanceof heel.HeelError && e.code === 'EINVAL');
    await n.close();
  },

  async refused_write_holds_and_granted_write_works() {
    const target = path.join(scratch, 'outside');
    const script = ['sh', '-c', `echo x > ${target}`];
    const p = new heel.Policy();
    const r = await heel.run(p, script, opts);
    assert.notStrictEqual(r.status, 0, 'the write succeeded');
    assert(!fs.existsSync(target), `${target} was written`);
    // The control: granted, the same write lands.
    p.grant(scratch, 'rw');
    const g = await heel.run(p, script, opts);
    assert.strictEqual(g.status, 0, g.stderr);
    assert.strictEqual(fs.readFileSync(target, 'utf8'), 'x\n');
  },

  async builder_calls_wait_for_spawns_under_way() {
    const p = new heel.Policy();
    const pending = Promise.all([heel.run(p, ['echo', 'a'], opts), heel.run(p, ['echo', 'b'], opts)]);
    assert.throws(() => p.grant(scratch, 'rw'), (e) => e.code === 'EBUSY');
    const [a, b] = await pending;
    assert.deepStrictEqual([a.stdout, b.stdout], ['a\n', 'b\n']);
    // The control: once they have started, the policy can change again.
    p.grant(scratch, 'rw');
  },

  async exit_ends_running_sandboxes() {
    // A Node that spawns and then calls process.exit(): the sandbox ran
    // (the control, printed by that Node) and is gone after.
    const script = `
      const heel = require('heel'); const fs = require('fs');
      const n = () => fs.readdirSync('/proc').filter((p) => { try {
        return fs.readFileSync('/proc/' + p + '/cmdline', 'latin1') === 'sleep\\x0033.25\\x00'; } catch (e) { return false; } }).length;
      (async () => {
        await heel.spawn(new heel.Policy(), ['sleep', '33.25'], { launcher: process.env.HEEL_EXEC });
        for (let i = 0; i < 100 && n() === 0; i++) await new Promise((r) => setTimeout(r, 50));
        console.log('running ' + n());
        process.exit(0);
      })();`;
    const r = require('child_process').spawnSync(process.execPath, ['-e', script],
      { env: { ...process.env, NODE_PATH: path.join(__dirname, 'node_modules') }, encoding: 'utf8', timeout: 30000 });
    assert.strictEqual(r.stdout, 'running 1\n', r.stderr);
    for (let i = 0; i < 100 && sleeping('33.25') > 0; i++) await new Promise((res) => setTimeout(res, 50));
    assert.strictEqual(sleeping('33.25'), 0, 'the sandbox outlived the Node that spawned it');
  },

  async missing_launcher_is_an_exception() {
    await assert.rejects(heel.run(new heel.Policy(), ['true'], { launcher: '/nonexistent/heel-exec' }),
      (e) => e instanceof heel.HeelError && e.code === 'ENOENT');
  },
};

(async () => {
  const only = process.argv[2];
  for (const [name, fn] of Object.entries(cases)) {
    if (only && name !== only) continue;
    try {
      await fn();
      console.log(`ok   node ${name}`);
    } catch (e) {
      console.log(`FAIL node ${name}: ${(e && e.stack) || e}`);
    }
  }
})();
