ALTER TABLE `memories` ADD `occurred_at` integer;--> statement-breakpoint
CREATE INDEX `memories_occurred_at` ON `memories` (`occurred_at`);