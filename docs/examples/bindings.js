// SPDX-License-Identifier: MIT
// heel from Node (packaging/node, docs/bindings.md): a policy from
// builder calls, a command's output captured, another's streamed line by
// line, and a write the policy refuses. Run it where the package is
// installed (npm install PATH/TO/heel-0.1.0.tgz):
//
//   HEEL_EXEC=/usr/local/bin/heel-exec node bindings.js
//
// HEEL_EXEC names the heel-exec to run (make check-bindings points it at
// a staged install's); unset, libheel runs the one installed with it.
'use strict';
const readline = require('readline');
const heel = require('heel');

async function main() {
  const launcher = process.env.HEEL_EXEC; // undefined: the installed heel-exec
  // heel run --isolation strict --max-open-files 256, as calls.
  const policy = new heel.Policy().isolation('strict').limit('open-files', 256);

  const r = await heel.run(policy, ['echo', 'hello from the sandbox'], { launcher });
  console.log(`captured: ${r.stdout.trim()} (exit status ${r.status})`);

  const child = await heel.spawn(policy, ['sh', '-c', 'echo one; echo two'], { launcher });
  for await (const line of readline.createInterface({ input: child.stdout })) {
    console.log(`streamed: ${line}`);
  }
  console.log(`exit status ${await child.wait()}`);

  // /etc is read-only in the sandbox: the write fails, and heel-exec's
  // status says so (libheel reports no denial of its own: the command's
  // error is on its stderr).
  const w = await heel.run(policy, ['sh', '-c', 'echo x > /etc/heel-example'], { launcher });
  console.log(`refused: exit status ${w.status}`);
}

main().catch((e) => {
  console.error(`bindings.js: ${e.message}`);
  process.exit(1);
});
