CREATE TABLE `unlisted_plans` (
	`plan_id` integer PRIMARY KEY NOT NULL,
	`company_id` integer NOT NULL,
	`last_seen_at` text NOT NULL,
	`missing_since` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `unlisted_plans_company_idx` ON `unlisted_plans` (`company_id`);--> statement-breakpoint
DROP INDEX `rejected_records_run_idx`;--> statement-breakpoint
CREATE TABLE `__new_rejected_records` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`entity` text NOT NULL,
	`entity_id` integer,
	`content_hash` text NOT NULL,
	`reason` text NOT NULL,
	`first_run_id` integer NOT NULL,
	`last_run_id` integer NOT NULL,
	`first_seen_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`seen_runs` integer DEFAULT 1 NOT NULL,
	`raw_json` text
);
--> statement-breakpoint
INSERT INTO `__new_rejected_records`("id", "company_id", "entity", "entity_id", "content_hash", "reason", "first_run_id", "last_run_id", "first_seen_at", "last_seen_at", "seen_runs", "raw_json")
  SELECT r."id", coalesce(s."company_id", 0), r."entity", r."entity_id", 'legacy:' || r."id", r."reason", r."run_id", r."run_id",
    coalesce(s."started_at", '1970-01-01T00:00:00.000Z'), coalesce(s."started_at", '1970-01-01T00:00:00.000Z'), 1, r."raw_json"
  FROM `rejected_records` r LEFT JOIN `sync_runs` s ON s."id" = r."run_id";--> statement-breakpoint
DROP TABLE `rejected_records`;--> statement-breakpoint
ALTER TABLE `__new_rejected_records` RENAME TO `rejected_records`;--> statement-breakpoint
CREATE INDEX `rejected_records_company_run_idx` ON `rejected_records` (`company_id`,`last_run_id`);--> statement-breakpoint
ALTER TABLE `sync_state` ADD `plans_seen_at` text;--> statement-breakpoint
ALTER TABLE `sync_state` ADD `rejections_run_id` integer;--> statement-breakpoint
UPDATE `sync_state` SET `plans_seen_at` = `plans_listed_at`,
  `rejections_run_id` = (SELECT max(r."id") FROM `sync_runs` r WHERE r."company_id" = `sync_state`."company_id"
    AND r."trigger" <> 'replay' AND r."status" IN ('succeeded', 'partial'));--> statement-breakpoint
DROP VIEW `v_plans`;--> statement-breakpoint
CREATE VIEW `v_rejected_now` AS select "rejected_records"."id", "rejected_records"."company_id", "rejected_records"."entity", "rejected_records"."entity_id", "rejected_records"."content_hash", "rejected_records"."reason", "rejected_records"."first_run_id", "rejected_records"."last_run_id", "rejected_records"."first_seen_at", "rejected_records"."last_seen_at", "rejected_records"."seen_runs", "rejected_records"."raw_json" from "rejected_records" inner join "sync_state" on ("sync_state"."company_id" = "rejected_records"."company_id" and "sync_state"."rejections_run_id" = "rejected_records"."last_run_id");--> statement-breakpoint
CREATE VIEW `v_plans` AS select "plans"."id", "plans"."company_id", "plans"."project_id", "plans"."plan_name", "plans"."group_plan", "plans"."description", "plans"."enabled", "plans"."plan_parallel_test_limit", "plans"."alerts_enabled", "plans"."failed_test_retry_count", "plans"."screen_shot_type", "plans"."video_enabled", "plans"."performance_data_enabled", "plans"."clear_app_data", "plans"."platform", "plans"."period_type", "plans"."period_start_at", "plans"."period_end_at", "plans"."period_once_at", "plans"."period_repeat_minutes", "plans"."period_days_of_week", "plans"."raw_json", "plans"."content_hash", "plans"."first_seen_at", "plans"."seen_at", "plans"."deleted_at", CASE WHEN "plans"."deleted_at" IS NOT NULL THEN "plans"."seen_at"
        WHEN "unlisted_plans"."last_seen_at" IS NOT NULL THEN "unlisted_plans"."last_seen_at"
        WHEN "sync_state"."plans_seen_at" > "plans"."seen_at" THEN "sync_state"."plans_seen_at" ELSE "plans"."seen_at" END as "last_seen_at" from "plans" left join "sync_state" on "sync_state"."company_id" = "plans"."company_id" left join "unlisted_plans" on "unlisted_plans"."plan_id" = "plans"."id";