CREATE TABLE `authz_audit` (
	`audit_id` text PRIMARY KEY NOT NULL,
	`at` integer NOT NULL,
	`node` text NOT NULL,
	`caller_spiffe_id` text,
	`callee_spiffe_id` text,
	`action` text NOT NULL,
	`decision` text NOT NULL,
	`reason` text NOT NULL,
	`policy_version` text NOT NULL,
	`context` text NOT NULL,
	`result` text
);
--> statement-breakpoint
CREATE INDEX `authz_audit_at` ON `authz_audit` (`at`);