ALTER TABLE `agents` ADD `role` text;--> statement-breakpoint
ALTER TABLE `agents` ADD `goals` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `archived_at` integer;