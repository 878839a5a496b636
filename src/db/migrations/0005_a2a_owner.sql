ALTER TABLE `a2a_tasks` ADD `owner` text;--> statement-breakpoint
CREATE INDEX `a2a_tasks_owner_created_at` ON `a2a_tasks` (`owner`,`created_at`);