/**
 * Tokens (io.jwt.*): decoding, signature checks against a PEM certificate, a PEM public key or a JWK (set),
 * decode_verify with OPA's constraints (cert or secret, alg, iss, aud, time), and signing from a JWK. The
 * cryptography is node:crypto's; the rules and error texts are OPA's.
 */
import { constants, createHmac, createPrivateKey, createPublicKey, type KeyObject, sign as cryptoSign, timingSafeEqual, verify as cryptoVerify, X509Certificate } from "node:crypto";
import { BuiltinError } from "../values/errors.ts";
import { parseJSON } from "../values/json.ts";
import { isNumber, RObject, toJSON, type Value } from "../values/values.ts";
import { compareNum, type Num } from "../values/numbers.ts";
import type { BuiltinContext } from "../syntax/builtin.ts";
import { builtin, obj, str } from "./builtin.ts";

const ALGORITHMS = new Set(["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "HS256", "HS384", "HS512", "EdDSA"]);

interface Token {
  header: string;
  payload: string;
  signature: string;
}

interface VerificationKey {
  alg: string;
  kid: string;
  key: KeyObject | Buffer;
}

const fail = (message: string) => new BuiltinError(message);

function split(token: string): Token {
  if (!token.includes(".")) throw fail("encoded JWT had no period separators");
  const parts = token.split(".");
  if (parts.length !== 3) throw fail(`encoded JWT must have 3 sections, found ${parts.length}`);
  return { header: parts[0]!, payload: parts[1]!, signature: parts[2]! };
}

/** base64url as OPA decodes it: padding optional; the first bad byte named. */
function base64url(s: string, what: string): Buffer {
  const body = s.replace(/=+$/, "");
  const bad = Array.from(body).findIndex((c) => !/[A-Za-z0-9_-]/.test(c));
  if (bad >= 0 || body.length % 4 === 1) throw fail(`${what} had invalid encoding: illegal base64 data at input byte ${bad >= 0 ? bad : body.length}`);
  return Buffer.from(body, "base64url");
}

function jsonObject(text: string, what: string): RObject {
  let v: Value;
  try {
    v = parseJSON(text);
  } catch (e) {
    throw fail(`${what}invalid JSON: ${(e as Error).message}`);
  }
  if (!(v instanceof RObject)) throw fail(`${what}decoded JSON type was not an Object`);
  return v;
}

function headerOf(t: Token): RObject {
  const header = jsonObject(base64url(t.header, "JWT header").toString("utf8"), "bad JWT header: ");
  if (header.get("enc") !== undefined) throw fail("JWT is a JWE object, which is not supported");
  return header;
}

/** The keys a certificate, a public key (PEM) or a JWK / JWK set gives, each with its alg and kid. */
function keysOf(text: string): VerificationKey[] {
  const pem = /-----BEGIN ([A-Z ]+)-----[\s\S]*?-----END \1-----/.exec(text);
  if (pem) {
    if (text.slice(pem.index + pem[0].length).trim()) throw fail("extra data after a PEM certificate block");
    try {
      if (pem[1] === "CERTIFICATE") return [{ alg: "", kid: "", key: new X509Certificate(pem[0]).publicKey }];
    } catch (e) {
      throw fail(`failed to parse a PEM certificate: ${(e as Error).message}`);
    }
    if (pem[1] === "PUBLIC KEY") return [{ alg: "", kid: "", key: createPublicKey(pem[0]) }];
    throw fail("failed to extract a Key from the PEM certificate");
  }
  let set: unknown;
  try {
    set = JSON.parse(text);
  } catch (e) {
    throw fail(`failed to parse a JWK key (set): ${(e as Error).message}`);
  }
  const jwks = (set && typeof set === "object" && Array.isArray((set as { keys?: unknown }).keys) ? (set as { keys: unknown[] }).keys : [set]) as Record<string, unknown>[];
  const out: VerificationKey[] = [];
  for (const jwk of jwks) {
    const alg = typeof jwk.alg === "string" ? jwk.alg : "";
    if (alg && !ALGORITHMS.has(alg)) continue;
    let key: KeyObject | Buffer;
    try {
      key = jwk.kty === "oct" ? Buffer.from(String(jwk.k ?? ""), "base64url") : createPublicKey({ key: jwk as never, format: "jwk" });
    } catch (e) {
      throw fail(`failed to parse a JWK key (set): ${(e as Error).message}`);
    }
    out.push({ alg, kid: typeof jwk.kid === "string" ? jwk.kid : "", key });
  }
  return out;
}

const HASHES: Record<string, string> = { "256": "sha256", "384": "sha384", "512": "sha512" };

/** Whether `signature` signs `data` under `alg` with `key` (false for a key of the wrong kind). */
function verifies(alg: string, key: KeyObject | Buffer, data: Buffer, signature: Buffer): boolean {
  try {
    const family = alg.slice(0, 2);
    const hash = HASHES[alg.slice(2)];
    if (family === "HS") {
      if (!Buffer.isBuffer(key)) return false;
      const mac = createHmac(hash!, key).update(data).digest();
      return mac.length === signature.length && timingSafeEqual(mac, signature);
    }
    if (Buffer.isBuffer(key)) return false;
    if (alg === "EdDSA") return cryptoVerify(null, data, key, signature);
    if (family === "RS") return cryptoVerify(hash!, data, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
    if (family === "PS") return cryptoVerify(hash!, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, signature);
    if (family === "ES") return cryptoVerify(hash!, data, { key, dsaEncoding: "ieee-p1363" }, signature);
  } catch {
    return false;
  }
  return false;
}

/** OPA's choice of key: the one whose kid the header names, else any key (without alg, or with the header's). */
function verifiedBy(keys: VerificationKey[], kid: string, alg: string, data: Buffer, signature: Buffer): boolean {
  if (kid) {
    const named = keys.find((k) => k.kid === kid);
    if (named) return verifies(alg, named.key, data, signature);
  }
  return keys.some((k) => (!k.alg || k.alg === alg) && verifies(alg, k.key, data, signature));
}

/** io.jwt.verify_<alg>(token, certificate or JWK set): the signature holds under `alg`. */
function verifyWith(alg: string) {
  return (args: Value[]) => {
    const t = split(str(args, 0));
    const keys = keysOf(str(args, 1));
    const signature = base64url(t.signature, "JWT signature");
    const header = headerOf(t);
    const kid = header.get("kid");
    return verifiedBy(keys, typeof kid === "string" ? kid : "", alg, Buffer.from(`${t.header}.${t.payload}`), signature);
  };
}

function verifyHS(hash: string) {
  return (args: Value[]) => {
    const t = split(str(args, 0));
    const secret = str(args, 1);
    const mac = createHmac(hash, secret).update(`${t.header}.${t.payload}`).digest();
    const signature = base64url(t.signature, "JWT signature");
    return mac.length === signature.length && timingSafeEqual(mac, signature);
  };
}

function decode(token: string): Value[] {
  const t = split(token);
  const header = headerOf(t);
  const payloadText = base64url(t.payload, "JWT payload").toString("utf8");
  if (header.get("cty") === "JWT") return decode(payloadText.replace(/^["']+|["']+$/g, ""));
  const payload = jsonObject(payloadText, "");
  const signature = base64url(t.signature, "JWT signature");
  return [header, payload, signature.toString("hex")];
}

const UNVERIFIED = () => [false, new RObject(), new RObject()];

function decodeVerify(token: string, constraints: RObject, ctx: BuiltinContext): Value[] {
  let keys: VerificationKey[] | undefined;
  let secret = "";
  let alg = "";
  let iss = "";
  let aud = "";
  let time: Num | undefined;
  for (const [k, v] of constraints.entries()) {
    const text = (name: string) => {
      if (typeof v !== "string") throw fail(`${name} constraint: must be a string`);
      return v;
    };
    switch (k) {
      case "cert":
        keys = keysOf(text("cert"));
        break;
      case "secret":
        secret = text("secret");
        break;
      case "alg":
        alg = text("alg");
        break;
      case "iss":
        iss = text("iss");
        break;
      case "aud":
        aud = text("aud");
        break;
      case "time":
        if (!isNumber(v)) throw fail("token time constraint: must be a number");
        if (compareNum(v, 0) < 0) throw fail("token time constraint: must not be negative");
        time = v;
        break;
      default:
        throw fail(`unknown token validation constraint: ${typeof k === "string" ? k : toJSON(k)}`);
    }
  }
  if ((keys ? 1 : 0) + (secret ? 1 : 0) > 1) throw fail("duplicate key constraints");
  if (!keys && !secret) throw fail("no key constraint");
  const now = Number(time ?? ctx.nowNs()) / 1e9;

  let current = token;
  let header: RObject;
  let payloadText: string;
  for (;;) {
    const t = split(current);
    header = headerOf(t);
    const headerAlg = header.get("alg");
    if (typeof headerAlg !== "string" || !headerAlg) return UNVERIFIED();
    const crit = header.get("crit");
    if (crit !== undefined) {
      if (!Array.isArray(crit) || !crit.length) throw fail("crit: must be a nonempty list");
      const known = new Set(["alg", "kid", "typ", "cty", "crit"]);
      if (header.entries().some(([key]) => typeof key === "string" && !known.has(key) && crit.includes(key))) return UNVERIFIED();
    }
    if (alg && alg !== headerAlg) return UNVERIFIED();
    const signature = base64url(t.signature, "JWT signature");
    const data = Buffer.from(`${t.header}.${t.payload}`);
    const kid = header.get("kid");
    const ok = keys ? verifiedBy(keys, typeof kid === "string" ? kid : "", headerAlg, data, signature) : verifies(headerAlg, Buffer.from(secret), data, signature);
    if (!ok) return UNVERIFIED();
    payloadText = base64url(t.payload, "JWT payload").toString("utf8");
    const cty = header.get("cty");
    if (typeof cty === "string" && cty.toLowerCase() === "jwt") {
      current = payloadText;
      continue;
    }
    break;
  }
  const payload = jsonObject(payloadText, "");
  if (iss && payload.get("iss") !== iss) return UNVERIFIED();
  const audience = payload.get("aud");
  if (audience !== undefined) {
    if (!(audience === aud || (Array.isArray(audience) && audience.some((a) => a === aud)))) return UNVERIFIED();
  } else if (aud) return UNVERIFIED();
  const exp = payload.get("exp");
  if (exp !== undefined) {
    if (!isNumber(exp)) throw fail("exp value must be a number");
    if (compareNum(now, exp) >= 0) return UNVERIFIED();
  }
  const nbf = payload.get("nbf");
  if (nbf !== undefined) {
    if (!isNumber(nbf)) throw fail("nbf value must be a number");
    if (compareNum(now, nbf) < 0) return UNVERIFIED();
  }
  return [true, header, payload];
}

/** JSON as Go's encoding/json writes it: <, > and & escaped. */
const goJSON = (v: Value) => toJSON(v).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);

function encodeSign(headerText: string, payloadText: string, jwkText: string): string {
  let set: Record<string, unknown>;
  try {
    set = JSON.parse(jwkText) as Record<string, unknown>;
  } catch (e) {
    throw fail(`failed to parse a JWK key (set): ${(e as Error).message}`);
  }
  const jwk = (Array.isArray(set.keys) ? set.keys[0] : set) as Record<string, unknown> | undefined;
  if (!jwk) throw fail("no keys found in JWK set");
  let header: unknown;
  try {
    if (!headerText) throw new Error("cannot parse empty string");
    header = JSON.parse(headerText);
  } catch (e) {
    throw fail(`missing or invalid 'alg' header: cannot parse JSON: ${(e as Error).message}`);
  }
  const alg = (header as { alg?: unknown })?.alg;
  if (typeof alg !== "string") throw fail(`missing or invalid 'alg' header: jwsbb: header "alg" not found`);
  if (!ALGORITHMS.has(alg)) throw fail(`unknown JWS algorithm: ${alg}`);
  const typ = (header as { typ?: unknown }).typ;
  if (typ === undefined || typ === "JWT") {
    try {
      JSON.parse(payloadText);
    } catch {
      throw fail("type is JWT but payload is not JSON");
    }
  }
  const signingInput = `${Buffer.from(headerText).toString("base64url")}.${Buffer.from(payloadText).toString("base64url")}`;
  const data = Buffer.from(signingInput);
  const family = alg.slice(0, 2);
  const hash = HASHES[alg.slice(2)];
  let signature: Buffer;
  if (family === "HS") signature = createHmac(hash!, Buffer.from(String(jwk.k ?? ""), "base64url")).update(data).digest();
  else {
    const key = createPrivateKey({ key: jwk as never, format: "jwk" });
    if (alg === "EdDSA") signature = cryptoSign(null, data, key);
    else if (family === "RS") signature = cryptoSign(hash!, data, { key, padding: constants.RSA_PKCS1_PADDING });
    else if (family === "PS") signature = cryptoSign(hash!, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
    else signature = cryptoSign(hash!, data, { key, dsaEncoding: "ieee-p1363" });
  }
  return `${signingInput}.${signature.toString("base64url")}`;
}

export const jwtBuiltins = [
  builtin("io.jwt.decode", 1, (args) => decode(str(args, 0))),
  builtin("io.jwt.decode_verify", 2, (args, ctx) => decodeVerify(str(args, 0), obj(args, 1), ctx)),
  ...["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"].map((alg) => builtin(`io.jwt.verify_${alg.toLowerCase()}`, 2, verifyWith(alg))),
  builtin("io.jwt.verify_eddsa", 2, verifyWith("EdDSA")),
  builtin("io.jwt.verify_hs256", 2, verifyHS("sha256")),
  builtin("io.jwt.verify_hs384", 2, verifyHS("sha384")),
  builtin("io.jwt.verify_hs512", 2, verifyHS("sha512")),
  builtin("io.jwt.encode_sign", 3, ([header, payload, key]) => encodeSign(goJSON(header!), goJSON(payload!), goJSON(key!))),
  builtin("io.jwt.encode_sign_raw", 3, (args) => encodeSign(str(args, 0), str(args, 1), str(args, 2))),
];
