ALTER TABLE `schema_changes` ADD `refused` integer;--> statement-breakpoint
ALTER TABLE `mobile_apps` ADD `metadata_repaired` integer;--> statement-breakpoint
CREATE VIEW `v_plan_changes` AS SELECT s.id, s.company_id, s.version_id, s.run_id, s.changed_at, '' AS path, 'added' AS kind,
        CAST(NULL AS TEXT) AS value_before, s.new_json AS value_after
      FROM (SELECT n.id, r.company_id, n.version_id, n.run_id, n.valid_from AS changed_at,
          coalesce(n.raw_json, r.raw_json) AS new_json, p.version_id AS prev_version_id,
          p.valid_to AS prev_valid_to, coalesce(p.raw_json, r.raw_json) AS old_json
        FROM plan_versions n
        JOIN plans r ON r.id = n.id
        LEFT JOIN plan_versions p ON p.version_id = (SELECT q.version_id FROM plan_versions q
          WHERE q.id = n.id AND (q.valid_from < n.valid_from OR (q.valid_from = n.valid_from AND q.version_id < n.version_id))
          ORDER BY q.valid_from DESC, q.version_id DESC LIMIT 1)) s WHERE s.prev_version_id IS NULL OR s.prev_valid_to < s.changed_at
    UNION ALL
    SELECT id, company_id, version_id, run_id, changed_at, path,
        CASE WHEN sum(1 - side) = 0 OR (member = 1 AND sum(side) > sum(1 - side)) THEN 'added'
          WHEN sum(side) = 0 OR member = 1 THEN 'removed' ELSE 'changed' END AS kind,
        CASE WHEN member = 0 THEN max(CASE WHEN side = 0 THEN val END) WHEN sum(1 - side) > sum(side) THEN member_val END AS value_before,
        CASE WHEN member = 0 THEN max(CASE WHEN side = 1 THEN val END) WHEN sum(side) > sum(1 - side) THEN member_val END AS value_after
      FROM (SELECT l.*, CASE WHEN l.member = 1 THEN l.typ END AS member_typ,
          CASE WHEN l.member = 1 THEN l.val END AS member_val FROM (SELECT s.id, s.company_id, s.version_id, s.run_id, s.changed_at, d.side,
          a.key || CASE WHEN b.id IS NULL OR a.type = 'array' THEN '' ELSE '.' || b.key END
            || CASE WHEN c.id IS NULL OR b.type = 'array' OR (a.type = 'array' AND c.key = 'id') THEN ''
               ELSE '.' || c.key END AS path,
          CASE WHEN a.type = 'array' OR (c.id IS NOT NULL AND b.type = 'array') THEN 1 ELSE 0 END AS member,
          CASE CASE WHEN c.id IS NOT NULL THEN c.type WHEN b.id IS NOT NULL THEN b.type ELSE a.type END WHEN 'integer' THEN 'number' WHEN 'real' THEN 'number' WHEN 'true' THEN 'boolean'
            WHEN 'false' THEN 'boolean' WHEN 'text' THEN 'string' ELSE CASE WHEN c.id IS NOT NULL THEN c.type WHEN b.id IS NOT NULL THEN b.type ELSE a.type END END AS typ,
          CASE CASE WHEN c.id IS NOT NULL THEN c.type WHEN b.id IS NOT NULL THEN b.type ELSE a.type END WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN NULL
            WHEN 'object' THEN json(CASE WHEN c.id IS NOT NULL THEN c.value WHEN b.id IS NOT NULL THEN b.value ELSE a.value END) WHEN 'array' THEN json(CASE WHEN c.id IS NOT NULL THEN c.value WHEN b.id IS NOT NULL THEN b.value ELSE a.value END)
            ELSE CAST(CASE WHEN c.id IS NOT NULL THEN c.value WHEN b.id IS NOT NULL THEN b.value ELSE a.value END AS TEXT) END AS val
        FROM (SELECT n.id, r.company_id, n.version_id, n.run_id, n.valid_from AS changed_at,
          coalesce(n.raw_json, r.raw_json) AS new_json, p.version_id AS prev_version_id,
          p.valid_to AS prev_valid_to, coalesce(p.raw_json, r.raw_json) AS old_json
        FROM plan_versions n
        JOIN plans r ON r.id = n.id
        LEFT JOIN plan_versions p ON p.version_id = (SELECT q.version_id FROM plan_versions q
          WHERE q.id = n.id AND (q.valid_from < n.valid_from OR (q.valid_from = n.valid_from AND q.version_id < n.version_id))
          ORDER BY q.valid_from DESC, q.version_id DESC LIMIT 1)) s
        JOIN (SELECT 0 AS side UNION ALL SELECT 1) d
        JOIN json_each(CASE WHEN json_valid(s.old_json) AND json_valid(s.new_json)
          THEN CASE d.side WHEN 0 THEN s.old_json ELSE s.new_json END END) a
        LEFT JOIN json_each(CASE d.side WHEN 0 THEN s.new_json ELSE s.old_json END) o ON o.key = a.key
        LEFT JOIN json_each(CASE WHEN a.type IN ('object', 'array') THEN a.value
          WHEN a.type = 'text' AND a.value LIKE '{%' THEN CASE WHEN json_valid(a.value) THEN a.value
            WHEN json_valid(replace(a.value, '\''', '''')) THEN replace(a.value, '\''', '''') END END) b
        LEFT JOIN json_each(CASE WHEN b.type IN ('object', 'array') THEN b.value
          WHEN b.type = 'text' AND b.value LIKE '{%' THEN CASE WHEN json_valid(b.value) THEN b.value
            WHEN json_valid(replace(b.value, '\''', '''')) THEN replace(b.value, '\''', '''') END END) c
        WHERE s.prev_version_id IS NOT NULL
          AND (o.id IS NULL OR o.type IS NOT a.type OR o.value IS NOT a.value)
          AND (c.id IS NOT NULL OR CASE WHEN c.id IS NOT NULL THEN c.type WHEN b.id IS NOT NULL THEN b.type ELSE a.type END NOT IN ('object', 'array'))) l) k
      GROUP BY id, company_id, version_id, run_id, changed_at, path, member, member_typ, member_val
      HAVING sum(1 - side) <> sum(side) OR (member = 0 AND (max(CASE WHEN side = 0 THEN val END) IS DISTINCT FROM max(CASE WHEN side = 1 THEN val END)
        OR max(CASE WHEN side = 0 THEN typ END) IS DISTINCT FROM max(CASE WHEN side = 1 THEN typ END)))
    UNION ALL
    SELECT v.id, r.company_id, v.version_id,
        (SELECT max(u.id) FROM sync_runs u WHERE u.company_id = r.company_id AND u.started_at = v.valid_to) AS run_id,
        v.valid_to AS changed_at, '' AS path, 'removed' AS kind, coalesce(v.raw_json, r.raw_json) AS value_before,
        CAST(NULL AS TEXT) AS value_after
      FROM plan_versions v JOIN plans r ON r.id = v.id
      WHERE v.valid_to IS NOT NULL AND NOT EXISTS (SELECT 1 FROM plan_versions w
        WHERE w.id = v.id AND w.valid_from = v.valid_to AND w.version_id <> v.version_id);--> statement-breakpoint
CREATE VIEW `v_report_changes` AS SELECT s.id, s.company_id, s.version_id, s.run_id, s.changed_at, '' AS path, 'added' AS kind,
        CAST(NULL AS TEXT) AS value_before, s.new_json AS value_after
      FROM (SELECT n.id, r.company_id, n.version_id, n.run_id, n.valid_from AS changed_at,
          coalesce(n.raw_json, r.raw_json) AS new_json, p.version_id AS prev_version_id,
          p.valid_to AS prev_valid_to, coalesce(p.raw_json, r.raw_json) AS old_json
        FROM report_versions n
        JOIN scheduled_reports r ON r.id = n.id
        LEFT JOIN report_versions p ON p.version_id = (SELECT q.version_id FROM report_versions q
          WHERE q.id = n.id AND (q.valid_from < n.valid_from OR (q.valid_from = n.valid_from AND q.version_id < n.version_id))
          ORDER BY q.valid_from DESC, q.version_id DESC LIMIT 1)) s WHERE s.prev_version_id IS NULL OR s.prev_valid_to < s.changed_at
    UNION ALL
    SELECT id, company_id, version_id, run_id, changed_at, path,
        CASE WHEN sum(1 - side) = 0 OR (member = 1 AND sum(side) > sum(1 - side)) THEN 'added'
          WHEN sum(side) = 0 OR member = 1 THEN 'removed' ELSE 'changed' END AS kind,
        CASE WHEN member = 0 THEN max(CASE WHEN side = 0 THEN val END) WHEN sum(1 - side) > sum(side) THEN member_val END AS value_before,
        CASE WHEN member = 0 THEN max(CASE WHEN side = 1 THEN val END) WHEN sum(side) > sum(1 - side) THEN member_val END AS value_after
      FROM (SELECT l.*, CASE WHEN l.member = 1 THEN l.typ END AS member_typ,
          CASE WHEN l.member = 1 THEN l.val END AS member_val FROM (SELECT s.id, s.company_id, s.version_id, s.run_id, s.changed_at, d.side,
          a.key || CASE WHEN b.id IS NULL OR a.type = 'array' THEN '' ELSE '.' || b.key END
            || CASE WHEN c.id IS NULL OR b.type = 'array' OR (a.type = 'array' AND c.key = 'id') THEN ''
               ELSE '.' || c.key END AS path,
          CASE WHEN a.type = 'array' OR (c.id IS NOT NULL AND b.type = 'array') THEN 1 ELSE 0 END AS member,
          CASE CASE WHEN c.id IS NOT NULL THEN c.type WHEN b.id IS NOT NULL THEN b.type ELSE a.type END WHEN 'integer' THEN 'number' WHEN 'real' THEN 'number' WHEN 'true' THEN 'boolean'
            WHEN 'false' THEN 'boolean' WHEN 'text' THEN 'string' ELSE CASE WHEN c.id IS NOT NULL THEN c.type WHEN b.id IS NOT NULL THEN b.type ELSE a.type END END AS typ,
          CASE CASE WHEN c.id IS NOT NULL THEN c.type WHEN b.id IS NOT NULL THEN b.type ELSE a.type END WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN NULL
            WHEN 'object' THEN json(CASE WHEN c.id IS NOT NULL THEN c.value WHEN b.id IS NOT NULL THEN b.value ELSE a.value END) WHEN 'array' THEN json(CASE WHEN c.id IS NOT NULL THEN c.value WHEN b.id IS NOT NULL THEN b.value ELSE a.value END)
            ELSE CAST(CASE WHEN c.id IS NOT NULL THEN c.value WHEN b.id IS NOT NULL THEN b.value ELSE a.value END AS TEXT) END AS val
        FROM (SELECT n.id, r.company_id, n.version_id, n.run_id, n.valid_from AS changed_at,
          coalesce(n.raw_json, r.raw_json) AS new_json, p.version_id AS prev_version_id,
          p.valid_to AS prev_valid_to, coalesce(p.raw_json, r.raw_json) AS old_json
        FROM report_versions n
        JOIN scheduled_reports r ON r.id = n.id
        LEFT JOIN report_versions p ON p.version_id = (SELECT q.version_id FROM report_versions q
          WHERE q.id = n.id AND (q.valid_from < n.valid_from OR (q.valid_from = n.valid_from AND q.version_id < n.version_id))
          ORDER BY q.valid_from DESC, q.version_id DESC LIMIT 1)) s
        JOIN (SELECT 0 AS side UNION ALL SELECT 1) d
        JOIN json_each(CASE WHEN json_valid(s.old_json) AND json_valid(s.new_json)
          THEN CASE d.side WHEN 0 THEN s.old_json ELSE s.new_json END END) a
        LEFT JOIN json_each(CASE d.side WHEN 0 THEN s.new_json ELSE s.old_json END) o ON o.key = a.key
        LEFT JOIN json_each(CASE WHEN a.type IN ('object', 'array') THEN a.value
          WHEN a.type = 'text' AND a.value LIKE '{%' THEN CASE WHEN json_valid(a.value) THEN a.value
            WHEN json_valid(replace(a.value, '\''', '''')) THEN replace(a.value, '\''', '''') END END) b
        LEFT JOIN json_each(CASE WHEN b.type IN ('object', 'array') THEN b.value
          WHEN b.type = 'text' AND b.value LIKE '{%' THEN CASE WHEN json_valid(b.value) THEN b.value
            WHEN json_valid(replace(b.value, '\''', '''')) THEN replace(b.value, '\''', '''') END END) c
        WHERE s.prev_version_id IS NOT NULL
          AND (o.id IS NULL OR o.type IS NOT a.type OR o.value IS NOT a.value)
          AND (c.id IS NOT NULL OR CASE WHEN c.id IS NOT NULL THEN c.type WHEN b.id IS NOT NULL THEN b.type ELSE a.type END NOT IN ('object', 'array'))) l) k
      GROUP BY id, company_id, version_id, run_id, changed_at, path, member, member_typ, member_val
      HAVING sum(1 - side) <> sum(side) OR (member = 0 AND (max(CASE WHEN side = 0 THEN val END) IS DISTINCT FROM max(CASE WHEN side = 1 THEN val END)
        OR max(CASE WHEN side = 0 THEN typ END) IS DISTINCT FROM max(CASE WHEN side = 1 THEN typ END)))
    UNION ALL
    SELECT v.id, r.company_id, v.version_id,
        (SELECT max(u.id) FROM sync_runs u WHERE u.company_id = r.company_id AND u.started_at = v.valid_to) AS run_id,
        v.valid_to AS changed_at, '' AS path, 'removed' AS kind, coalesce(v.raw_json, r.raw_json) AS value_before,
        CAST(NULL AS TEXT) AS value_after
      FROM report_versions v JOIN scheduled_reports r ON r.id = v.id
      WHERE v.valid_to IS NOT NULL AND NOT EXISTS (SELECT 1 FROM report_versions w
        WHERE w.id = v.id AND w.valid_from = v.valid_to AND w.version_id <> v.version_id);