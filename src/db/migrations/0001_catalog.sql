CREATE TABLE `catalog_api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`role` text NOT NULL,
	`customer_id` text,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`customer_id`) REFERENCES `catalog_customers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `catalog_api_keys_key_hash_unique` ON `catalog_api_keys` (`key_hash`);--> statement-breakpoint
CREATE TABLE `catalog_customers` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`password_hash` text NOT NULL,
	`addresses` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `catalog_customers_email_unique` ON `catalog_customers` (`email`);--> statement-breakpoint
CREATE TABLE `catalog_orders` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`status` text NOT NULL,
	`items` text NOT NULL,
	`total_cents` integer NOT NULL,
	`shipping_address` text NOT NULL,
	`idempotency_scope` text,
	`idempotency_key` text,
	`request_hash` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `catalog_customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `catalog_orders_created` ON `catalog_orders` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `catalog_orders_customer_created` ON `catalog_orders` (`customer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `catalog_orders_status_created` ON `catalog_orders` (`status`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `catalog_orders_idempotency` ON `catalog_orders` (`idempotency_scope`,`idempotency_key`);--> statement-breakpoint
CREATE TABLE `catalog_products` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`price_cents` integer NOT NULL,
	`sku` text NOT NULL,
	`category` text NOT NULL,
	`stock` integer NOT NULL,
	`images` text NOT NULL,
	`tags` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `catalog_products_sku_unique` ON `catalog_products` (`sku`);--> statement-breakpoint
CREATE INDEX `catalog_products_created` ON `catalog_products` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `catalog_products_category_created` ON `catalog_products` (`category`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `catalog_products_price` ON `catalog_products` (`price_cents`);--> statement-breakpoint
CREATE TABLE `catalog_refresh_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`family_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`revoked_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `catalog_customers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `catalog_refresh_tokens_token_hash_unique` ON `catalog_refresh_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `catalog_refresh_tokens_family` ON `catalog_refresh_tokens` (`family_id`);