/** Identity errors: each says what is wrong in words a person can act on. */
export class SpiffeIdError extends Error {
  override name = "SpiffeIdError";
}

/** An SVID that cannot be used: unreadable files, a key that does not match, a certificate without a SPIFFE id. */
export class SvidError extends Error {
  override name = "SvidError";
}
