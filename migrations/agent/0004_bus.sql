CREATE TABLE `bus_conversations` (
	`conversation_id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `bus_inbox` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`from_agent` text NOT NULL,
	`conversation_id` text NOT NULL,
	`depth` integer NOT NULL,
	`run_id` text,
	`request` text,
	`status` text NOT NULL,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `bus_inbox_run` ON `bus_inbox` (`run_id`);--> statement-breakpoint
CREATE TABLE `bus_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`call_id` text NOT NULL,
	`target` text NOT NULL,
	`conversation_id` text NOT NULL,
	`depth` integer NOT NULL,
	`deadline_at` integer NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`settled_at` integer
);
--> statement-breakpoint
CREATE INDEX `bus_outbox_run` ON `bus_outbox` (`run_id`);--> statement-breakpoint
CREATE INDEX `bus_outbox_status` ON `bus_outbox` (`status`);