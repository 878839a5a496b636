/**
 * The fixed forms in which a credential value can show up in a response: as it is, base64 and base64url (at each
 * of the three alignments it can take inside a longer encoded text), base64 of its base64 (a secret inside a
 * document that is itself base64-encoded, as a repository host returns a file), URL-encoded, hex and
 * JSON-escaped. Forms written with escapes in any mixture (every byte percent-encoded, `\u0065`, `&#76;`) are
 * found by decoding instead (escapes.ts).
 */
const minimumForm = 6;

/** The base64 and base64url forms of `bytes`: whole (padding included), and the cores fixed at each alignment. */
function base64Forms(bytes: Buffer, whole = true): string[] {
  const forms = whole ? [bytes.toString("base64"), bytes.toString("base64url")] : [];
  for (const offset of [0, 1, 2]) {
    const shifted = Buffer.concat([Buffer.alloc(offset), bytes]);
    // Only the characters fully determined by the value's own bits: the neighbours decide the edge characters.
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor((shifted.length * 8) / 6);
    forms.push(shifted.toString("base64").slice(first, last), shifted.toString("base64url").slice(first, last));
  }
  return forms;
}

export function encodedForms(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const forms = new Set<string>([value, ...base64Forms(bytes)]);
  // The value's own base64 (whole, or inside a longer base64 text), encoded again inside a longer text.
  const inner = [bytes.toString("base64"), bytes.toString("base64url"), ...base64Forms(bytes, false).filter((_, i) => i % 2 === 0)];
  for (const once of inner) for (const twice of base64Forms(Buffer.from(once), false)) forms.add(twice);
  const urlEncoded = encodeURIComponent(value);
  forms.add(urlEncoded);
  forms.add(urlEncoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
  forms.add(urlEncoded.replace(/%20/g, "+"));
  forms.add(bytes.toString("hex"));
  forms.add(bytes.toString("hex").toUpperCase());
  forms.add(JSON.stringify(value).slice(1, -1));
  return [...forms].filter((form) => form.length >= Math.min(minimumForm, value.length));
}
