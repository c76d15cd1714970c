CREATE TABLE `scenario_requests` (
	`key` text PRIMARY KEY NOT NULL,
	`company_id` integer NOT NULL,
	`project_id` integer NOT NULL,
	`scenario_name` text NOT NULL,
	`payload_json` text NOT NULL,
	`parent_key` text,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`error_code` text,
	`scenario_id` integer,
	`in_flight` integer DEFAULT false NOT NULL,
	`uncertain` integer DEFAULT false NOT NULL,
	`batch_id` text,
	`source_file` text,
	`source_line` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `scenario_requests_status_idx` ON `scenario_requests` (`status`);--> statement-breakpoint
CREATE INDEX `scenario_requests_parent_idx` ON `scenario_requests` (`parent_key`);--> statement-breakpoint
CREATE INDEX `scenario_requests_batch_idx` ON `scenario_requests` (`batch_id`,`status`);--> statement-breakpoint
CREATE TABLE `scenarios` (
	`id` integer PRIMARY KEY NOT NULL,
	`request_key` text,
	`company_id` integer,
	`project_id` integer,
	`type` text,
	`scenario_name` text,
	`description` text,
	`enabled` integer,
	`deleted` integer,
	`testrail_enabled` integer,
	`parent_id` integer,
	`execute_mode` text,
	`source_file` text,
	`max_execution_time` integer,
	`childs_json` text,
	`parameterized` integer,
	`has_parameterized_class` integer,
	`java_test_class` text,
	`java_test_methods` text,
	`test_scenario_java_parameters_json` text,
	`is_group` integer,
	`raw_json` text NOT NULL,
	`recorded_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `scenarios_project_idx` ON `scenarios` (`project_id`,`scenario_name`);--> statement-breakpoint
CREATE TABLE `seed_rejections` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`batch_id` text NOT NULL,
	`source_file` text NOT NULL,
	`line` integer NOT NULL,
	`key` text,
	`field` text,
	`reason` text NOT NULL,
	`recorded_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `seed_rejections_batch_idx` ON `seed_rejections` (`batch_id`);