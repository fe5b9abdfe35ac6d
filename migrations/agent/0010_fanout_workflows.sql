CREATE TABLE `workflow_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`definition` text NOT NULL,
	`input` text NOT NULL,
	`progress` text NOT NULL,
	`status` text NOT NULL,
	`principal` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `workflow_runs_status` ON `workflow_runs` (`status`);--> statement-breakpoint
ALTER TABLE `bus_fanouts` ADD `spec` text;--> statement-breakpoint
ALTER TABLE `bus_fanouts` ADD `reply_to` text;