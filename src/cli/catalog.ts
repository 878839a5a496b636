/**
 * `platform catalog seed --products N`: fills the catalog with realistic products (demos, benchmarks).
 * `platform catalog admin --email E [--name N] [--password-stdin]`: creates an admin account, which is how the
 * first admin comes to exist; without --password-stdin a strong password is generated and printed once.
 */
import { settingHelp, settingOptions, settingsFrom } from "./settings.ts";
import { UsageError, type Verb } from "./verb.ts";

export const catalogVerb: Verb = {
  name: "catalog",
  summary: "catalog administration: seed products, create an admin",
  args: "<seed|admin>",
  options: {
    products: { type: "string" },
    email: { type: "string" },
    name: { type: "string" },
    "password-stdin": { type: "boolean" },
    ...settingOptions,
  },
  help: {
    products: "--products <n>       seed: how many products to add (1 to 10000000)",
    email: "--email <address>    admin: the new admin's email",
    name: "--name <name>        admin: the new admin's display name (default Administrator)",
    "password-stdin": "--password-stdin     admin: read the password from stdin instead of generating one",
    ...settingHelp,
  },
  async run(values, [action, ...extra]) {
    if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
    if (action !== "seed" && action !== "admin") throw new UsageError(action ? `unknown catalog action '${action}'` : "say 'seed' or 'admin'");
    const { config } = settingsFrom(values);
    const [{ openDatabase, storeOptions }, { seedProducts, createAdmin }] = await Promise.all([import("../db/client.ts"), import("../catalog/seed.ts")]);

    if (action === "seed") {
      const count = Number(values.products);
      if (!Number.isInteger(count) || count < 1 || count > 10_000_000) throw new UsageError("--products must be a whole number from 1 to 10000000");
      const database = await openDatabase(storeOptions(config));
      try {
        const started = performance.now();
        await seedProducts(database.db, count, { seed: Date.now() });
        process.stdout.write(`added ${count} products in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
      } finally {
        await database.close();
      }
      return 0;
    }

    const email = values.email as string | undefined;
    if (!email || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new UsageError("--email must be an email address");
    const given = values["password-stdin"] ? (await Bun.stdin.text()).replace(/\r?\n$/, "") : undefined;
    if (given !== undefined && (given.length < 8 || given.length > 256)) throw new UsageError("the password must be 8 to 256 characters");
    const { randomBytes } = await import("node:crypto");
    const password = given ?? randomBytes(18).toString("base64url");
    const database = await openDatabase(storeOptions(config));
    try {
      const admin = await createAdmin(database.db, { email, name: (values.name as string | undefined) ?? "Administrator", password });
      process.stdout.write(`created admin ${admin.email} (${admin.id})\n`);
      if (given === undefined) process.stdout.write(`password: ${password}\n`);
    } finally {
      await database.close();
    }
    return 0;
  },
};
