CREATE TABLE `a2a_tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`state` text NOT NULL,
	`context_id` text NOT NULL,
	`payload` text NOT NULL,
	`messages` text NOT NULL,
	`artifacts` text NOT NULL,
	`result` text,
	`error` text,
	`metadata` text NOT NULL,
	`revision` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `a2a_tasks_state_type` ON `a2a_tasks` (`state`,`type`);--> statement-breakpoint
CREATE INDEX `a2a_tasks_updated_at` ON `a2a_tasks` (`updated_at`);