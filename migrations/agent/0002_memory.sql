CREATE TABLE `memories` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`kind` text NOT NULL,
	`text` text NOT NULL,
	`source` text DEFAULT 'memory' NOT NULL,
	`title` text,
	`importance` real DEFAULT 0.5 NOT NULL,
	`entities` text NOT NULL,
	`subject` text,
	`relation` text,
	`object` text,
	`superseded_by` text,
	`provenance` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `memories_id` ON `memories` (`id`);--> statement-breakpoint
CREATE INDEX `memories_source_kind` ON `memories` (`source`,`kind`);--> statement-breakpoint
CREATE INDEX `memories_slot` ON `memories` (`subject`,`relation`);--> statement-breakpoint
CREATE INDEX `memories_provenance` ON `memories` (`provenance`);--> statement-breakpoint
CREATE TABLE `memory_edges` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subject` text NOT NULL,
	`relation` text NOT NULL,
	`object` text NOT NULL,
	`provenance` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `memory_edges_subject` ON `memory_edges` (`subject`);--> statement-breakpoint
CREATE INDEX `memory_edges_object` ON `memory_edges` (`object`);--> statement-breakpoint
CREATE INDEX `memory_edges_provenance` ON `memory_edges` (`provenance`);--> statement-breakpoint
CREATE TABLE `memory_vectors` (
	`memory_id` text NOT NULL,
	`vector_id` text NOT NULL,
	`model` text NOT NULL,
	`dimensions` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`memory_id`, `model`)
);
--> statement-breakpoint
CREATE INDEX `memory_vectors_model` ON `memory_vectors` (`model`);