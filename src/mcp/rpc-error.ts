/** A JSON-RPC error that answers an HTTP request before any MCP session or message is involved. */
export const rpcError = (status: number, code: number, message: string): Response =>
  Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });

/**
 * A JSON-RPC error raised in a request handler. The SDK sends `code` and `message` as they are; its own McpError
 * would put "MCP error <code>:" into the message, and the client's McpError adds that prefix a second time.
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
