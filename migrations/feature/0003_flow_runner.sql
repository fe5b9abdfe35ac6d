ALTER TABLE `feature` ADD `project` text;--> statement-breakpoint
ALTER TABLE `feature` ADD `paused` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `feature` ADD `run_all` text;--> statement-breakpoint
ALTER TABLE `feature` ADD `stopped` text;--> statement-breakpoint
ALTER TABLE `feature` ADD `completed_at` integer;--> statement-breakpoint
ALTER TABLE `feature` ADD `planner_runs` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `feature` ADD `questions` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `feature` ADD `max_questions` integer DEFAULT 3 NOT NULL;--> statement-breakpoint
ALTER TABLE `feature` ADD `removed_tasks` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `tasks` ADD `depends_on` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `tasks` ADD `origin` text DEFAULT 'plan' NOT NULL;--> statement-breakpoint
ALTER TABLE `tasks` ADD `plan_version` integer;