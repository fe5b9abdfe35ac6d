CREATE TABLE `bus_log` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`type` text NOT NULL,
	`from_agent` text NOT NULL,
	`to_agent` text NOT NULL,
	`depth` integer NOT NULL,
	`asker_run_id` text NOT NULL,
	`call_id` text NOT NULL,
	`run_id` text,
	`run_status` text,
	`state` text NOT NULL,
	`text` text NOT NULL,
	`code` text,
	`note` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `bus_log_conversation` ON `bus_log` (`conversation_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `bus_log_to_state` ON `bus_log` (`to_agent`,`state`);