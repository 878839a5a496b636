/**
 * GET replies as JSON with an ETag, and 304 Not Modified when the client's copy is current (RFC 9110 13.1.2).
 * The text is kept per replied value: the services hand out the same kept object (a product, a page) until the
 * database changes, so a value replied again is neither serialized nor hashed again.
 */
const replies = new WeakMap<object, { body: string; etag: string }>();

export function jsonReply(value: object, ifNoneMatch: string | null): Response {
  let reply = replies.get(value);
  if (!reply) {
    const body = JSON.stringify(value);
    reply = { body, etag: `"${Bun.hash(body).toString(36)}"` };
    replies.set(value, reply);
  }
  if (ifNoneMatch && matches(ifNoneMatch, reply.etag)) return new Response(null, { status: 304, headers: { etag: reply.etag } });
  return new Response(reply.body, { headers: { "content-type": "application/json;charset=utf-8", etag: reply.etag } });
}

/** If-None-Match: `*`, or a list of entity tags compared weakly (a `W/` prefix is ignored). */
const matches = (header: string, etag: string) =>
  header.trim() === "*" || header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
