/**
 * A real OPA server (the `opa` the install script builds) on a free loopback port, for tests that hold the
 * embedded engine and its OPA-compatible API to OPA's own answers. It reports nothing outside the machine.
 */
import { requireTool } from "./tools.ts";

export interface RunningOpa {
  url: string;
  stop(): Promise<void>;
}

/** A loopback port nothing listens on now (taken and let go, then handed to OPA). */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** Starts `opa run --server` with `args` (files, flags); resolves once it says it is serving. */
export async function startOpa(args: string[] = []): Promise<RunningOpa> {
  const port = freePort();
  const child = Bun.spawn([requireTool("opa"), "run", "--server", "--disable-telemetry", "--log-level", "debug", "--addr", `127.0.0.1:${port}`, ...args], {
    stdout: "ignore",
    stderr: "pipe",
    stdin: "ignore",
  });
  const reader = child.stderr.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`opa exited before serving: ${seen.slice(-500)}`);
    seen += decoder.decode(value);
    if (seen.includes('"msg":"Server initialized."')) break;
  }
  // Its log keeps coming: read to the end, or a full pipe would stall (or a closed one stop) the server.
  void (async () => {
    while (!(await reader.read()).done);
  })();
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill();
      await child.exited;
    },
  };
}
