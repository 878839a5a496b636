/** A JSON-RPC error that answers an HTTP request before any MCP session or message is involved. */
export const rpcError = (status: number, code: number, message: string): Response =>
  Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
