/**
 * Demo and benchmark data: products that read like a real shop's (names, descriptions, prices, stock, tags,
 * images per category), and the first admin account. Products are inserted in batches, one transaction each.
 */
import { randomUUID } from "node:crypto";
import type { Db } from "../db/client.ts";
import type { ProductRow } from "../db/schema.ts";
import { hashPassword } from "./auth.ts";
import { conflict } from "./errors.ts";
import type { Category, Customer } from "./model.ts";
import { findCustomerByEmail, insertCustomer, insertProducts } from "./repo.ts";
import { customerView } from "./views.ts";

const words: Record<Category, { nouns: string[]; traits: string[]; cents: [number, number] }> = {
  electronics: {
    nouns: ["Headphones", "Speaker", "Keyboard", "Monitor", "Charger", "Webcam", "Router", "Smartwatch", "Tablet", "Microphone"],
    traits: ["Wireless", "Noise-Cancelling", "Portable", "Bluetooth", "4K", "Compact", "Mechanical", "Fast-Charging"],
    cents: [999, 149_999],
  },
  clothing: {
    nouns: ["Jacket", "T-Shirt", "Jeans", "Sweater", "Raincoat", "Scarf", "Sneakers", "Hoodie", "Dress", "Socks"],
    traits: ["Organic Cotton", "Slim-Fit", "Waterproof", "Merino", "Linen", "Recycled", "Classic", "Oversized"],
    cents: [499, 29_999],
  },
  books: {
    nouns: ["Cookbook", "Novel", "Field Guide", "Atlas", "Biography", "Poetry Collection", "Workbook", "Anthology"],
    traits: ["Illustrated", "Hardcover", "Paperback", "Annotated", "Collector's", "Pocket", "Revised"],
    cents: [399, 8_999],
  },
  home: {
    nouns: ["Lamp", "Kettle", "Blanket", "Vase", "Chair", "Cutting Board", "Mug Set", "Curtains", "Rug", "Shelf"],
    traits: ["Ceramic", "Oak", "Handwoven", "Minimalist", "Stainless", "Bamboo", "Vintage", "Cozy"],
    cents: [799, 59_999],
  },
  sports: {
    nouns: ["Yoga Mat", "Water Bottle", "Tennis Racket", "Running Shoes", "Dumbbells", "Bike Helmet", "Backpack", "Tent"],
    traits: ["Lightweight", "Insulated", "Trail", "Pro", "Adjustable", "Breathable", "All-Weather", "Foldable"],
    cents: [599, 89_999],
  },
};
const categories = Object.keys(words) as Category[];
const colors = ["Black", "White", "Navy", "Forest Green", "Sand", "Charcoal", "Red", "Sky Blue"];
const uses = ["everyday use", "travel", "the office", "weekends outdoors", "gifting", "small spaces", "beginners", "long sessions"];

/** A small deterministic generator, so a given seed always makes the same shop. */
function random(seed: number) {
  let state = seed >>> 0 || 1;
  return () => ((state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0) / 2 ** 32);
}

export async function seedProducts(db: Db, count: number, { seed = 7, batch = 1000 } = {}): Promise<number> {
  const next = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const start = Date.now() - count * 1000;
  const runId = randomUUID().slice(0, 8).toUpperCase();
  for (let done = 0; done < count; ) {
    const rows: ProductRow[] = [];
    for (const end = Math.min(count, done + batch); done < end; done++) {
      const category = pick(categories);
      const { nouns, traits, cents } = words[category];
      const noun = pick(nouns);
      const trait = pick(traits);
      const color = pick(colors);
      const created = new Date(start + done * 1000);
      const id = randomUUID();
      rows.push({
        id,
        name: `${trait} ${noun}${category === "books" ? "" : ` - ${color}`}`,
        description: `A ${trait.toLowerCase()} ${noun.toLowerCase()} made for ${pick(uses)}. ${color} finish, backed by a two-year warranty.`,
        priceCents: Math.round(cents[0] + next() * (cents[1] - cents[0])),
        sku: `${category.slice(0, 3).toUpperCase()}-${runId}-${String(done).padStart(7, "0")}`,
        category,
        stock: Math.floor(next() * 500),
        images: [`https://images.example.com/products/${id}/main.jpg`],
        tags: [category, trait.toLowerCase(), color.toLowerCase()],
        createdAt: created,
        updatedAt: created,
      });
    }
    await db.transaction((tx) => insertProducts(tx, rows));
  }
  return count;
}

/** Creates an admin account: how the first admin comes to exist (`platform catalog admin`). */
export async function createAdmin(db: Db, { email, name, password }: { email: string; name: string; password: string }): Promise<Customer> {
  const normalized = email.trim().toLowerCase();
  if (await findCustomerByEmail(db, normalized)) throw conflict(`Email ${normalized} is already registered`, { field: "email" });
  const now = new Date();
  const row = { id: randomUUID(), email: normalized, name, role: "admin" as const, passwordHash: await hashPassword(password), addresses: [], createdAt: now, updatedAt: now };
  await insertCustomer(db, row);
  return customerView(row);
}
