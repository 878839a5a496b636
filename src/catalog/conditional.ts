/**
 * GET replies as JSON with an ETag, and 304 Not Modified when the client's copy is current (RFC 9110 13.1.2).
 * The text is kept per replied value: the services hand out the same kept objects (a product, a page of them)
 * until the database changes, so a value replied again is neither serialized nor hashed again, and a page is
 * written from the kept texts of its items. (Kept values are never changed once handed out.)
 */
const replies = new WeakMap<object, { body: string; etag: string }>();
const texts = new WeakMap<object, string>();

/** A value's JSON text, kept for objects. */
function textOf(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  let text = texts.get(value);
  if (text === undefined) {
    const { data, ...rest } = value as { data?: unknown };
    // A page ({ data: [...], ... }): its items' texts, each written once however many pages hold it.
    const others = JSON.stringify(rest);
    text = Array.isArray(data) ? `{"data":[${data.map(textOf).join(",")}]${others === "{}" ? "}" : `,${others.slice(1)}`}` : JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}

export function jsonReply(value: object, ifNoneMatch: string | null): Response {
  let reply = replies.get(value);
  if (!reply) {
    const body = textOf(value);
    reply = { body, etag: `"${Bun.hash(body).toString(36)}"` };
    replies.set(value, reply);
  }
  if (ifNoneMatch && matches(ifNoneMatch, reply.etag)) return new Response(null, { status: 304, headers: { etag: reply.etag } });
  return new Response(reply.body, { headers: { "content-type": "application/json;charset=utf-8", etag: reply.etag } });
}

/** If-None-Match: `*`, or a list of entity tags compared weakly (a `W/` prefix is ignored). */
const matches = (header: string, etag: string) =>
  header.trim() === "*" || header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
