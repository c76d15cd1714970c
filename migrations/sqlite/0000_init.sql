CREATE TABLE `mobile_apps` (
	`id` integer PRIMARY KEY NOT NULL,
	`operating_system` text,
	`mobile_app_name` text,
	`mobile_app_hash` text,
	`created_at` text,
	`metadata_json` text,
	`metadata_error` text,
	`app_id` text,
	`display_name` text,
	`version_name` text,
	`version_code` integer,
	`min_os_version` text,
	`target_sdk_version` text
);
--> statement-breakpoint
CREATE TABLE `plan_alerts` (
	`plan_id` integer NOT NULL,
	`position` integer NOT NULL,
	`json` text NOT NULL,
	PRIMARY KEY(`plan_id`, `position`)
);
--> statement-breakpoint
CREATE TABLE `plan_days_of_week` (
	`plan_id` integer NOT NULL,
	`day_number` integer NOT NULL,
	`day_name` text NOT NULL,
	PRIMARY KEY(`plan_id`, `day_number`)
);
--> statement-breakpoint
CREATE TABLE `plan_environments` (
	`plan_id` integer NOT NULL,
	`environment_id` integer NOT NULL,
	`occurrences` integer NOT NULL,
	PRIMARY KEY(`plan_id`, `environment_id`)
);
--> statement-breakpoint
CREATE TABLE `plan_fetch_app_files` (
	`plan_id` integer NOT NULL,
	`position` integer NOT NULL,
	`json` text NOT NULL,
	PRIMARY KEY(`plan_id`, `position`)
);
--> statement-breakpoint
CREATE TABLE `plan_mobile_apps` (
	`plan_id` integer NOT NULL,
	`operating_system` text NOT NULL,
	`mobile_app_id` integer NOT NULL,
	PRIMARY KEY(`plan_id`, `operating_system`)
);
--> statement-breakpoint
CREATE TABLE `plan_resolutions` (
	`plan_id` integer NOT NULL,
	`os` text NOT NULL,
	`resolution` text NOT NULL,
	`width` integer,
	`height` integer,
	PRIMARY KEY(`plan_id`, `os`)
);
--> statement-breakpoint
CREATE TABLE `plan_scenarios` (
	`plan_id` integer NOT NULL,
	`scenario_id` integer NOT NULL,
	`position` integer NOT NULL,
	PRIMARY KEY(`plan_id`, `position`)
);
--> statement-breakpoint
CREATE INDEX `plan_scenarios_scenario_idx` ON `plan_scenarios` (`scenario_id`);--> statement-breakpoint
CREATE TABLE `plan_versions` (
	`version_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` integer NOT NULL,
	`content_hash` text NOT NULL,
	`valid_from` text NOT NULL,
	`valid_to` text,
	`raw_json` text NOT NULL,
	`run_id` integer
);
--> statement-breakpoint
CREATE INDEX `plan_versions_id_idx` ON `plan_versions` (`id`,`valid_from`);--> statement-breakpoint
CREATE TABLE `plans` (
	`id` integer PRIMARY KEY NOT NULL,
	`company_id` integer NOT NULL,
	`project_id` integer,
	`plan_name` text,
	`group_plan` integer,
	`description` text,
	`enabled` integer,
	`plan_parallel_test_limit` integer,
	`alerts_enabled` integer,
	`failed_test_retry_count` integer,
	`screen_shot_type` text,
	`video_enabled` integer,
	`performance_data_enabled` integer,
	`clear_app_data` integer,
	`platform` text NOT NULL,
	`period_type` text,
	`period_start_at` text,
	`period_end_at` text,
	`period_once_at` text,
	`period_repeat_minutes` integer,
	`period_days_of_week` text,
	`raw_json` text NOT NULL,
	`content_hash` text NOT NULL,
	`first_seen_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `plans_company_idx` ON `plans` (`company_id`);--> statement-breakpoint
CREATE TABLE `rejected_records` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` integer NOT NULL,
	`entity` text NOT NULL,
	`entity_id` integer,
	`reason` text NOT NULL,
	`raw_json` text
);
--> statement-breakpoint
CREATE INDEX `rejected_records_run_idx` ON `rejected_records` (`run_id`);--> statement-breakpoint
CREATE TABLE `report_alerts` (
	`report_id` integer NOT NULL,
	`position` integer NOT NULL,
	`alert_type` text,
	`alert_sending_status` text,
	`target` text,
	`enabled` integer,
	`unsubscribe_link_eliminated` integer,
	PRIMARY KEY(`report_id`, `position`)
);
--> statement-breakpoint
CREATE TABLE `report_plans` (
	`report_id` integer NOT NULL,
	`plan_id` integer NOT NULL,
	PRIMARY KEY(`report_id`, `plan_id`)
);
--> statement-breakpoint
CREATE INDEX `report_plans_plan_idx` ON `report_plans` (`plan_id`);--> statement-breakpoint
CREATE TABLE `report_recipients` (
	`report_id` integer NOT NULL,
	`email` text NOT NULL,
	PRIMARY KEY(`report_id`, `email`)
);
--> statement-breakpoint
CREATE TABLE `report_statuses` (
	`report_id` integer NOT NULL,
	`status` text NOT NULL,
	PRIMARY KEY(`report_id`, `status`)
);
--> statement-breakpoint
CREATE TABLE `report_user_roles` (
	`report_id` integer NOT NULL,
	`role` text NOT NULL,
	PRIMARY KEY(`report_id`, `role`)
);
--> statement-breakpoint
CREATE TABLE `report_versions` (
	`version_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` integer NOT NULL,
	`content_hash` text NOT NULL,
	`valid_from` text NOT NULL,
	`valid_to` text,
	`raw_json` text NOT NULL,
	`run_id` integer
);
--> statement-breakpoint
CREATE INDEX `report_versions_id_idx` ON `report_versions` (`id`,`valid_from`);--> statement-breakpoint
CREATE TABLE `scheduled_reports` (
	`id` integer PRIMARY KEY NOT NULL,
	`company_id` integer NOT NULL,
	`report_name` text,
	`content_mail` text,
	`enabled` integer,
	`frequency` text,
	`created_user` text,
	`usage_gauge` integer,
	`report_hour` text,
	`start_date` text,
	`end_date` text,
	`raw_json` text NOT NULL,
	`content_hash` text NOT NULL,
	`first_seen_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `scheduled_reports_company_idx` ON `scheduled_reports` (`company_id`);--> statement-breakpoint
CREATE TABLE `sync_errors` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` integer NOT NULL,
	`entity` text NOT NULL,
	`entity_id` integer,
	`code` text NOT NULL,
	`http_status` integer,
	`message` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sync_errors_run_idx` ON `sync_errors` (`run_id`);--> statement-breakpoint
CREATE TABLE `sync_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`trigger` text NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text,
	`status` text NOT NULL,
	`fetched` integer DEFAULT 0 NOT NULL,
	`inserted` integer DEFAULT 0 NOT NULL,
	`updated` integer DEFAULT 0 NOT NULL,
	`unchanged` integer DEFAULT 0 NOT NULL,
	`deleted` integer DEFAULT 0 NOT NULL,
	`rejected` integer DEFAULT 0 NOT NULL,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `sync_runs_company_idx` ON `sync_runs` (`company_id`,`started_at`);--> statement-breakpoint
CREATE VIEW `v_plan_schedule` AS SELECT p.id AS plan_id, p.company_id, p.project_id, p.plan_name, p.enabled, p.platform,
        p.period_type, p.period_start_at, p.period_end_at, p.period_once_at, p.period_repeat_minutes,
        p.period_days_of_week,
        (SELECT group_concat(day_name, ',') FROM
           (SELECT d.day_name FROM plan_days_of_week d WHERE d.plan_id = p.id ORDER BY d.day_number)) AS day_names
      FROM plans p
      WHERE p.deleted_at IS NULL;--> statement-breakpoint
CREATE VIEW `v_report_plan_coverage` AS SELECT r.id AS report_id, r.company_id, r.report_name, rp.plan_id, p.plan_name,
        p.deleted_at AS plan_deleted_at,
        CASE WHEN p.id IS NULL THEN 1 ELSE 0 END AS dangling
      FROM scheduled_reports r
      JOIN report_plans rp ON rp.report_id = r.id
      LEFT JOIN plans p ON p.id = rp.plan_id
      WHERE r.deleted_at IS NULL;