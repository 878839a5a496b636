/** A real platform with the catalog on a free loopback port, over a real SQLite file in a temp dir. */
import { catalogCapability } from "../../src/catalog/capability.ts";
import { createAdmin } from "../../src/catalog/seed.ts";
import { createLogger } from "../../src/log.ts";
import type { RunningRuntime } from "../../src/runtime.ts";
import { startApp } from "../support/app.ts";

export interface Shop {
  base: string;
  runtime: RunningRuntime;
  dataDir: string;
  logged: string[];
  /** fetch under /v2 with JSON in and out. */
  call(method: string, path: string, options?: { body?: unknown; token?: string; apiKey?: string; headers?: Record<string, string> }): Promise<Response>;
  json<T = any>(method: string, path: string, options?: Parameters<Shop["call"]>[2]): Promise<{ status: number; body: T; headers: Headers }>;
  /** GET under /v2 as the admin: product reads need a credential unless catalog.public_reads is set. */
  read<T = any>(path: string): Promise<{ status: number; body: T; headers: Headers }>;
  admin: { email: string; password: string; token: string };
  /** Signs up a customer and signs them in. */
  customer(name?: string): Promise<{ id: string; email: string; password: string; token: string; refreshToken: string }>;
  stop(): Promise<void>;
}

let counter = 0;

export async function openShop(env: Record<string, string> = {}, dataDir?: string): Promise<Shop> {
  const logged: string[] = [];
  const running = await startApp([catalogCapability], {
    env: { PLATFORM_CATALOG__RATE_LIMIT_ANONYMOUS: "100000", PLATFORM_CATALOG__RATE_LIMIT_AUTHENTICATED: "100000", ...env },
    log: createLogger({ level: "info", write: (l) => void logged.push(l) }),
    dataDir,
  });
  const { runtime } = running;
  const base = `${running.base}/v2`;

  const call: Shop["call"] = (method, path, { body, token, apiKey, headers = {} } = {}) =>
    fetch(`${base}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(apiKey ? { "x-api-key": apiKey } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  const json: Shop["json"] = async (method, path, options) => {
    const res = await call(method, path, options);
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
  const login = async (email: string, password: string) => {
    const res = await json("POST", "/auth/login", { body: { email, password } });
    if (res.status !== 200) throw new Error(`login failed: ${JSON.stringify(res.body)}`);
    return res.body as { accessToken: string; refreshToken: string; customer: { id: string } };
  };

  const adminEmail = `admin${counter++}@shop.test`;
  await createAdmin(runtime.database.db, { email: adminEmail, name: "Admin", password: "admin-password" });
  const admin = { email: adminEmail, password: "admin-password", token: (await login(adminEmail, "admin-password")).accessToken };

  return {
    base,
    runtime,
    dataDir: running.dataDir,
    logged,
    call,
    json,
    read: (path) => json("GET", path, { token: admin.token }),
    admin,
    async customer(name = "Casey") {
      const email = `${name.toLowerCase()}${counter++}@shop.test`;
      const password = "customer-password";
      const created = await json("POST", "/customers", { body: { email, name, password } });
      if (created.status !== 201) throw new Error(`sign-up failed: ${JSON.stringify(created.body)}`);
      const tokens = await login(email, password);
      return { id: tokens.customer.id, email, password, token: tokens.accessToken, refreshToken: tokens.refreshToken };
    },
    stop: running.close,
  };
}

export const address = { street: "1 Main St", city: "Springfield", country: "US", postalCode: "12345" };

export const productInput = (overrides: Record<string, unknown> = {}) => ({
  name: "Desk Lamp",
  description: "A warm lamp for late reading",
  price: 19.99,
  sku: `LAMP-${counter++}`,
  category: "home",
  stock: 10,
  images: ["https://images.example.com/lamp.jpg"],
  tags: ["lighting"],
  ...overrides,
});
