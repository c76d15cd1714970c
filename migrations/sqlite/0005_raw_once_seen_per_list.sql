ALTER TABLE `plans` RENAME COLUMN "last_seen_at" TO "seen_at";--> statement-breakpoint
DROP INDEX `plans_company_idx`;--> statement-breakpoint
CREATE INDEX `plans_company_index_idx` ON `plans` (`company_id`,`id`,`content_hash`,`deleted_at`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_plan_versions` (
	`version_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` integer NOT NULL,
	`content_hash` text NOT NULL,
	`valid_from` text NOT NULL,
	`valid_to` text,
	`raw_json` text,
	`run_id` integer
);
--> statement-breakpoint
INSERT INTO `__new_plan_versions`("version_id", "id", "content_hash", "valid_from", "valid_to", "raw_json", "run_id") SELECT "version_id", "id", "content_hash", "valid_from", "valid_to", "raw_json", "run_id" FROM `plan_versions`;--> statement-breakpoint
DROP TABLE `plan_versions`;--> statement-breakpoint
ALTER TABLE `__new_plan_versions` RENAME TO `plan_versions`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `plan_versions_id_idx` ON `plan_versions` (`id`,`valid_from`);--> statement-breakpoint
CREATE TABLE `__new_report_versions` (
	`version_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` integer NOT NULL,
	`content_hash` text NOT NULL,
	`valid_from` text NOT NULL,
	`valid_to` text,
	`raw_json` text,
	`run_id` integer
);
--> statement-breakpoint
INSERT INTO `__new_report_versions`("version_id", "id", "content_hash", "valid_from", "valid_to", "raw_json", "run_id") SELECT "version_id", "id", "content_hash", "valid_from", "valid_to", "raw_json", "run_id" FROM `report_versions`;--> statement-breakpoint
DROP TABLE `report_versions`;--> statement-breakpoint
ALTER TABLE `__new_report_versions` RENAME TO `report_versions`;--> statement-breakpoint
CREATE INDEX `report_versions_id_idx` ON `report_versions` (`id`,`valid_from`);--> statement-breakpoint
ALTER TABLE `sync_state` ADD `plans_listed_at` text;--> statement-breakpoint
ALTER TABLE `sync_state` ADD `write_generation` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE VIEW `v_plan_versions` AS select "plan_versions"."version_id", "plan_versions"."id", "plan_versions"."content_hash", "plan_versions"."valid_from", "plan_versions"."valid_to", coalesce("plan_versions"."raw_json", "plans"."raw_json") as "raw_json", "plan_versions"."run_id" from "plan_versions" left join "plans" on "plans"."id" = "plan_versions"."id";--> statement-breakpoint
CREATE VIEW `v_plans` AS select "plans"."id", "plans"."company_id", "plans"."project_id", "plans"."plan_name", "plans"."group_plan", "plans"."description", "plans"."enabled", "plans"."plan_parallel_test_limit", "plans"."alerts_enabled", "plans"."failed_test_retry_count", "plans"."screen_shot_type", "plans"."video_enabled", "plans"."performance_data_enabled", "plans"."clear_app_data", "plans"."platform", "plans"."period_type", "plans"."period_start_at", "plans"."period_end_at", "plans"."period_once_at", "plans"."period_repeat_minutes", "plans"."period_days_of_week", "plans"."raw_json", "plans"."content_hash", "plans"."first_seen_at", "plans"."seen_at", "plans"."deleted_at", CASE WHEN "plans"."deleted_at" IS NULL AND "sync_state"."plans_listed_at" > "plans"."seen_at"
        THEN "sync_state"."plans_listed_at" ELSE "plans"."seen_at" END as "last_seen_at" from "plans" left join "sync_state" on "sync_state"."company_id" = "plans"."company_id";--> statement-breakpoint
CREATE VIEW `v_report_versions` AS select "report_versions"."version_id", "report_versions"."id", "report_versions"."content_hash", "report_versions"."valid_from", "report_versions"."valid_to", coalesce("report_versions"."raw_json", "scheduled_reports"."raw_json") as "raw_json", "report_versions"."run_id" from "report_versions" left join "scheduled_reports" on "scheduled_reports"."id" = "report_versions"."id";--> statement-breakpoint
UPDATE `plan_versions` SET `raw_json` = NULL
  WHERE `content_hash` = (SELECT p.`content_hash` FROM `plans` p WHERE p.`id` = `plan_versions`.`id`);--> statement-breakpoint
UPDATE `report_versions` SET `raw_json` = NULL
  WHERE `content_hash` = (SELECT r.`content_hash` FROM `scheduled_reports` r WHERE r.`id` = `report_versions`.`id`);
