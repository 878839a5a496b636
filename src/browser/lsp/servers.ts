/** Language servers the start_lsp_server tool started on TCP, one per requested port, kept until shutdown. */
import type { Server } from "node:net";

export class LanguageServers {
  readonly #started = new Map<number, Promise<Server>>();

  /** Listens on `port` (0 picks a free one), or answers where the one already on that port listens. */
  async listen(port: number): Promise<{ host: string; port: number }> {
    let started = port ? this.#started.get(port) : undefined;
    if (!started) {
      const { listenLanguage } = await import("./server.ts");
      started = listenLanguage(port);
      started.catch(() => this.#started.delete(port));
      this.#started.set(port, started);
    }
    const address = (await started).address() as { address: string; port: number };
    return { host: address.address, port: address.port };
  }

  async close(): Promise<void> {
    for (const started of this.#started.values()) (await started.catch(() => undefined))?.close();
    this.#started.clear();
  }
}
