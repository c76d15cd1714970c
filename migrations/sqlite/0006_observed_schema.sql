CREATE TABLE `schema_changes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`run_id` integer NOT NULL,
	`detected_at` text NOT NULL,
	`entity` text NOT NULL,
	`path` text NOT NULL,
	`kind` text NOT NULL,
	`before` text,
	`after` text,
	`example_id` integer,
	`acknowledged_at` text
);
--> statement-breakpoint
CREATE INDEX `schema_changes_company_idx` ON `schema_changes` (`company_id`,`id`);--> statement-breakpoint
CREATE TABLE `schema_paths` (
	`company_id` integer NOT NULL,
	`entity` text NOT NULL,
	`path` text NOT NULL,
	`present` integer DEFAULT 0 NOT NULL,
	`n_string` integer DEFAULT 0 NOT NULL,
	`n_integer` integer DEFAULT 0 NOT NULL,
	`n_number` integer DEFAULT 0 NOT NULL,
	`n_boolean` integer DEFAULT 0 NOT NULL,
	`n_null` integer DEFAULT 0 NOT NULL,
	`n_object` integer DEFAULT 0 NOT NULL,
	`n_array` integer DEFAULT 0 NOT NULL,
	`min_number` real,
	`max_number` real,
	`values_capped` integer DEFAULT false NOT NULL,
	`first_run_id` integer,
	`first_seen_at` text,
	`last_run_id` integer,
	`last_seen_at` text,
	PRIMARY KEY(`company_id`, `entity`, `path`)
);
--> statement-breakpoint
CREATE TABLE `schema_values` (
	`company_id` integer NOT NULL,
	`entity` text NOT NULL,
	`path` text NOT NULL,
	`value` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`company_id`, `entity`, `path`, `value`)
);
--> statement-breakpoint
CREATE VIEW `v_schema` AS SELECT p.company_id, p.entity, p.path,
        concat_ws(',', CASE WHEN p.n_string > 0 THEN 'string' END, CASE WHEN p.n_integer > 0 THEN 'integer' END,
          CASE WHEN p.n_number > 0 THEN 'number' END, CASE WHEN p.n_boolean > 0 THEN 'boolean' END,
          CASE WHEN p.n_null > 0 THEN 'null' END, CASE WHEN p.n_object > 0 THEN 'object' END,
          CASE WHEN p.n_array > 0 THEN 'array' END) AS types,
        p.present, e.present AS entity_count, p.values_capped, p.min_number, p.max_number,
        p.first_seen_at, p.last_seen_at
      FROM schema_paths p
      LEFT JOIN schema_paths e ON e.company_id = p.company_id AND e.entity = p.entity AND e.path = ''
      WHERE p.path <> '';