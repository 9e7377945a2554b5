#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""heel from Python (packaging/python, docs/bindings.md): a policy from
builder calls, a command's output captured, another's streamed with
asyncio, and a write the policy refuses. Run it with a Python where the
package is installed (pip install PATH/TO/packaging/python):

    HEEL_EXEC=/usr/local/bin/heel-exec python3 bindings.py

HEEL_EXEC names the heel-exec to run (make check-bindings points it at a
staged install's); unset, libheel runs the one installed with it."""
import asyncio
import os

import heel
import heel.aio


async def main():
    launcher = os.environ.get("HEEL_EXEC")  # None: the installed heel-exec
    # heel run --isolation strict --max-open-files 256, as calls.
    policy = heel.Policy().isolation("strict").limit("open-files", 256)

    r = heel.run(policy, ["echo", "hello from the sandbox"], launcher=launcher, text=True)
    print(f"captured: {r.stdout.strip()} (exit status {r.status})")

    child = await heel.aio.spawn(policy, ["sh", "-c", "echo one; echo two"], launcher=launcher)
    async for line in child.stdout:
        print(f"streamed: {line.decode().rstrip()}")
    print(f"exit status {await child.wait()}")

    # /etc is read-only in the sandbox: the write fails, and heel-exec's
    # status says so (libheel reports no denial of its own: the command's
    # error is on its stderr).
    w = await heel.aio.run(policy, ["sh", "-c", "echo x > /etc/heel-example"], launcher=launcher)
    print(f"refused: exit status {w.status}")


asyncio.run(main())
