/**
 * The forms in which a credential value can show up in a response: as it is, base64 and base64url (at each of
 * the three alignments it can take inside a longer encoded text), URL-encoded, hex and JSON-escaped.
 */
const minimumForm = 6;

export function encodedForms(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  // The whole value encoded on its own, padding included, is redacted in full...
  const forms = new Set<string>([value, bytes.toString("base64"), bytes.toString("base64url")]);
  // ...and inside a longer encoded text, at each alignment it can take.
  for (const offset of [0, 1, 2]) {
    const shifted = Buffer.concat([Buffer.alloc(offset), bytes]);
    // Only the characters fully determined by the value's own bits: the neighbours decide the edge characters.
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor((shifted.length * 8) / 6);
    forms.add(shifted.toString("base64").slice(first, last));
    forms.add(shifted.toString("base64url").slice(first, last));
  }
  const urlEncoded = encodeURIComponent(value);
  forms.add(urlEncoded);
  forms.add(urlEncoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
  forms.add(urlEncoded.replace(/%20/g, "+"));
  forms.add(bytes.toString("hex"));
  forms.add(bytes.toString("hex").toUpperCase());
  forms.add(JSON.stringify(value).slice(1, -1));
  return [...forms].filter((form) => form.length >= Math.min(minimumForm, value.length));
}
