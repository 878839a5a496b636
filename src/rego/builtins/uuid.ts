/** UUIDs: uuid.rfc4122 makes a version 4 UUID (one per seed string and evaluation), uuid.parse reads one. */
import { fromBigInt } from "../values/numbers.ts";
import { RObject, type Value } from "../values/values.ts";
import { builtin, str } from "./builtin.ts";

/** The 16 bytes of a UUID in any of the forms Go's google/uuid accepts, or undefined. */
function uuidBytes(s: string): Uint8Array | undefined {
  let text = s;
  if (text.length === 45 && text.slice(0, 9).toLowerCase() === "urn:uuid:") text = text.slice(9);
  else if (text.length === 38) text = text.slice(1, 37);
  let hex: string;
  if (text.length === 36) {
    if (text[8] !== "-" || text[13] !== "-" || text[18] !== "-" || text[23] !== "-") return undefined;
    hex = text.replaceAll("-", "");
  } else if (text.length === 32) hex = text;
  else return undefined;
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) return undefined;
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

const VARIANTS = ["Reserved", "RFC4122", "Microsoft", "Future"];
const DOMAINS = ["Person", "Group", "Org"];
/** 100-ns intervals between 1582-10-15 (the UUID epoch) and 1970-01-01. */
const GREGORIAN_OFFSET = 122192928000000000n;

function variant(b: number): string {
  if ((b & 0xc0) === 0x80) return VARIANTS[1]!;
  if ((b & 0xe0) === 0xc0) return VARIANTS[2]!;
  if ((b & 0xe0) === 0xe0) return VARIANTS[3]!;
  return VARIANTS[0]!;
}

function macVariables(first: number): string {
  if ((first & 0b11) === 0b11) return "local:multicast";
  if ((first & 0b01) === 0b01) return "global:multicast";
  if ((first & 0b10) === 0b10) return "local:unicast";
  return "global:unicast";
}

function describe(u: Uint8Array): RObject {
  const view = new DataView(u.buffer);
  const version = u[6]! >> 4;
  const out: [Value, Value][] = [
    ["version", version],
    ["variant", variant(u[8]!)],
  ];
  if (version === 1 || version === 2) {
    const ticks = BigInt(view.getUint32(0)) | (BigInt(view.getUint16(4)) << 32n) | (BigInt(view.getUint16(6) & 0xfff) << 48n);
    const since = ticks - GREGORIAN_OFFSET;
    const nanos = (since / 10_000_000n) * 1_000_000_000n + (since % 10_000_000n) * 100n;
    out.push(
      ["time", fromBigInt(nanos)],
      ["nodeid", Array.from(u.slice(10), (b) => b.toString(16).padStart(2, "0")).join("-")],
      ["macvariables", macVariables(u[10]!)],
      ["clocksequence", view.getUint16(8) & 0x3fff],
    );
    if (version === 2) out.push(["id", view.getUint32(0)], ["domain", DOMAINS[u[9]!] ?? `Domain${u[9]}`]);
  }
  return RObject.of(out);
}

export const uuidBuiltins = [
  builtin("uuid.rfc4122", 1, (args, ctx) => ctx.remember(`uuid.rfc4122\0${str(args, 0)}`, () => crypto.randomUUID())),
  builtin("uuid.parse", 1, (args) => {
    const bytes = uuidBytes(str(args, 0));
    return bytes && describe(bytes);
  }),
];
