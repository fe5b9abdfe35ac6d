ALTER TABLE `runs` ADD `principal_id` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `principal_scope` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `principal_name` text;