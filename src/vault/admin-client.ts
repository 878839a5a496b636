/** The CLI's side of the admin socket (admin-socket.ts): asks the server that owns the data dir to do something. */
import { VaultError, type VaultErrorCode } from "./errors.ts";

/** What the server answered, or that no server listens on the socket (none runs, or it has no socket). */
export type Answer = { reached: true; body: unknown } | { reached: false };

export async function askServer(socket: string, route: string, body: unknown): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(`http://localhost${route}`, {
      unix: socket,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // No socket file, or one left by a server that died.
    if (code === "ENOENT" || code === "ECONNREFUSED") return { reached: false };
    throw new Error(`cannot reach the server's admin socket at ${socket}: ${code ?? (error as Error).message}`);
  }
  if (response.status === 204) return { reached: true, body: undefined };
  const answer = (await response.json()) as { error?: { code: VaultErrorCode; message: string } };
  if (!response.ok) throw new VaultError(answer.error?.code ?? "INVALID_REQUEST", answer.error?.message ?? `the server answered ${response.status}`);
  return { reached: true, body: answer };
}
