-- Product search moves from the FTS5 trigram table to the catalog's in-memory product index, which learns of
-- every product change from catalog_product_changes (triggers below); and a product's category becomes optional.
DROP TRIGGER IF EXISTS `catalog_products_search_insert`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `catalog_products_search_delete`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `catalog_products_search_update`;
--> statement-breakpoint
DROP TABLE IF EXISTS `catalog_products_search`;
--> statement-breakpoint
CREATE TABLE `catalog_product_changes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`product_id` text NOT NULL
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_catalog_products` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`price_cents` integer NOT NULL,
	`sku` text NOT NULL,
	`category` text,
	`stock` integer NOT NULL,
	`images` text NOT NULL,
	`tags` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_catalog_products`("id", "name", "description", "price_cents", "sku", "category", "stock", "images", "tags", "created_at", "updated_at") SELECT "id", "name", "description", "price_cents", "sku", "category", "stock", "images", "tags", "created_at", "updated_at" FROM `catalog_products`;--> statement-breakpoint
DROP TABLE `catalog_products`;--> statement-breakpoint
ALTER TABLE `__new_catalog_products` RENAME TO `catalog_products`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `catalog_products_sku_unique` ON `catalog_products` (`sku`);
--> statement-breakpoint
-- Written here rather than in schema.ts, which cannot declare triggers. Every writer, this process or any other,
-- logs the products it touches; stock changes (orders) are left out, as no index keeps stock.
CREATE TRIGGER `catalog_product_changes_insert` AFTER INSERT ON `catalog_products` BEGIN
	INSERT INTO `catalog_product_changes` (`product_id`) VALUES (new.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `catalog_product_changes_delete` AFTER DELETE ON `catalog_products` BEGIN
	INSERT INTO `catalog_product_changes` (`product_id`) VALUES (old.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `catalog_product_changes_update`
AFTER UPDATE OF `id`, `name`, `description`, `category`, `price_cents`, `created_at` ON `catalog_products` BEGIN
	INSERT INTO `catalog_product_changes` (`product_id`) VALUES (old.`id`);
	INSERT INTO `catalog_product_changes` (`product_id`) SELECT new.`id` WHERE new.`id` <> old.`id`;
END;
