CREATE TABLE `vault_audit` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`caller` text NOT NULL,
	`operation` text NOT NULL,
	`service` text,
	`method` text,
	`path` text,
	`status` integer,
	`outcome` text NOT NULL,
	`duration_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `vault_audit_at` ON `vault_audit` (`at`);--> statement-breakpoint
CREATE TABLE `vault_data_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`master_version` integer NOT NULL,
	`wrapped` text NOT NULL,
	`active` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `vault_leases` (
	`id` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`state` text NOT NULL,
	`hash` text,
	`holder` text NOT NULL,
	`secret_id_accessor` text,
	`expires_at` integer NOT NULL,
	`renewals` integer NOT NULL,
	`issued_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vault_leases_hash_unique` ON `vault_leases` (`hash`);--> statement-breakpoint
CREATE INDEX `vault_leases_secret_id` ON `vault_leases` (`secret_id_accessor`);--> statement-breakpoint
CREATE TABLE `vault_roles` (
	`name` text PRIMARY KEY NOT NULL,
	`role_id` text NOT NULL,
	`services` text NOT NULL,
	`token_ttl_seconds` integer NOT NULL,
	`token_max_ttl_seconds` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vault_roles_role_id_unique` ON `vault_roles` (`role_id`);--> statement-breakpoint
CREATE TABLE `vault_secret_ids` (
	`accessor` text PRIMARY KEY NOT NULL,
	`role_name` text NOT NULL,
	`hash` text NOT NULL,
	`uses_left` integer,
	`expires_at` integer,
	`revoked_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vault_secret_ids_hash_unique` ON `vault_secret_ids` (`hash`);--> statement-breakpoint
CREATE INDEX `vault_secret_ids_role` ON `vault_secret_ids` (`role_name`);--> statement-breakpoint
CREATE TABLE `vault_secrets` (
	`id` text PRIMARY KEY NOT NULL,
	`data_key_id` text NOT NULL,
	`sealed` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `vault_services` (
	`name` text PRIMARY KEY NOT NULL,
	`template` text NOT NULL,
	`settings` text NOT NULL,
	`status` text NOT NULL,
	`status_reason` text,
	`checked_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `vault_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`sealed` integer NOT NULL,
	`master_version` integer NOT NULL,
	`updated_at` integer NOT NULL
);
