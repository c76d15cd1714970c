ALTER TABLE "schema_changes" ADD COLUMN "refused" integer;--> statement-breakpoint
CREATE OR REPLACE FUNCTION tas_try_jsonb(t text) RETURNS jsonb
  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  RETURN t::jsonb;
EXCEPTION WHEN others THEN
  BEGIN
    RETURN replace(t, '\''', '''')::jsonb;
  EXCEPTION WHEN others THEN
    RETURN NULL;
  END;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION tas_json_leaves(doc text, other text)
  RETURNS TABLE (path text, member integer, typ text, val text)
  LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 40 SET jit = off AS $$
  SELECT a.key || CASE WHEN b.key IS NULL OR jsonb_typeof(a.value) = 'array' THEN '' ELSE '.' || b.key END
      || CASE WHEN c.key IS NULL OR jsonb_typeof(b.value) = 'array' OR (jsonb_typeof(a.value) = 'array' AND c.key = 'id')
         THEN '' ELSE '.' || c.key END,
    CASE WHEN jsonb_typeof(a.value) = 'array' OR (c.key IS NOT NULL AND jsonb_typeof(b.value) = 'array') THEN 1 ELSE 0 END,
    jsonb_typeof(CASE WHEN c.key IS NOT NULL THEN c.value WHEN b.key IS NOT NULL THEN b.value ELSE a.value END),
    CASE WHEN jsonb_typeof(CASE WHEN c.key IS NOT NULL THEN c.value WHEN b.key IS NOT NULL THEN b.value ELSE a.value END) IN ('object', 'array') THEN (CASE WHEN c.key IS NOT NULL THEN c.value WHEN b.key IS NOT NULL THEN b.value ELSE a.value END)::text ELSE (CASE WHEN c.key IS NOT NULL THEN c.value WHEN b.key IS NOT NULL THEN b.value ELSE a.value END) #>> '{}' END
  FROM (SELECT tas_try_jsonb(doc) AS j, tas_try_jsonb(other) AS o OFFSET 0) r
  CROSS JOIN LATERAL (SELECT e.key, e.value FROM jsonb_each(CASE WHEN jsonb_typeof(r.j) = 'object' THEN r.j END) e
    UNION ALL SELECT (e.i - 1)::text, e.value
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(r.j) = 'array' THEN r.j END) WITH ORDINALITY AS e(value, i)) a
  LEFT JOIN LATERAL (SELECT CASE WHEN jsonb_typeof(a.value) IN ('object', 'array') THEN a.value
      WHEN jsonb_typeof(a.value) = 'string' AND a.value #>> '{}' LIKE '{%' THEN tas_try_jsonb(a.value #>> '{}') END AS j OFFSET 0) da ON true
  LEFT JOIN LATERAL (SELECT e.key, e.value FROM jsonb_each(CASE WHEN jsonb_typeof(da.j) = 'object' THEN da.j END) e
    UNION ALL SELECT (e.i - 1)::text, e.value
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(da.j) = 'array' THEN da.j END) WITH ORDINALITY AS e(value, i)) b ON true
  LEFT JOIN LATERAL (SELECT CASE WHEN jsonb_typeof(b.value) IN ('object', 'array') THEN b.value
      WHEN jsonb_typeof(b.value) = 'string' AND b.value #>> '{}' LIKE '{%' THEN tas_try_jsonb(b.value #>> '{}') END AS j OFFSET 0) db ON true
  LEFT JOIN LATERAL (SELECT e.key, e.value FROM jsonb_each(CASE WHEN jsonb_typeof(db.j) = 'object' THEN db.j END) e
    UNION ALL SELECT (e.i - 1)::text, e.value
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(db.j) = 'array' THEN db.j END) WITH ORDINALITY AS e(value, i)) c ON true
  WHERE (r.o -> a.key IS NULL OR r.o -> a.key <> a.value)
    AND (c.key IS NOT NULL OR jsonb_typeof(CASE WHEN c.key IS NOT NULL THEN c.value WHEN b.key IS NOT NULL THEN b.value ELSE a.value END) NOT IN ('object', 'array'))
$$;--> statement-breakpoint
ALTER TABLE "mobile_apps" ADD COLUMN "metadata_repaired" boolean;--> statement-breakpoint
CREATE VIEW "public"."v_plan_changes" AS (SELECT s.id, s.company_id, s.version_id, s.run_id, s.changed_at, '' AS path, 'added' AS kind,
        CAST(NULL AS TEXT) AS value_before, s.new_json AS value_after
      FROM (SELECT n.id, r.company_id, n.version_id, n.run_id, n.valid_from AS changed_at,
          coalesce(n.raw_json, r.raw_json) AS new_json, p.version_id AS prev_version_id,
          p.valid_to AS prev_valid_to, coalesce(p.raw_json, r.raw_json) AS old_json
        FROM plan_versions n
        JOIN plans r ON r.id = n.id
        LEFT JOIN LATERAL (SELECT q.version_id, q.valid_to, q.raw_json FROM plan_versions q
          WHERE q.id = n.id AND (q.valid_from < n.valid_from OR (q.valid_from = n.valid_from AND q.version_id < n.version_id))
          ORDER BY q.valid_from DESC, q.version_id DESC LIMIT 1) p ON true) s WHERE s.prev_version_id IS NULL OR s.prev_valid_to < s.changed_at
    UNION ALL
    SELECT id, company_id, version_id, run_id, changed_at, path,
        CASE WHEN sum(1 - side) = 0 OR (member = 1 AND sum(side) > sum(1 - side)) THEN 'added'
          WHEN sum(side) = 0 OR member = 1 THEN 'removed' ELSE 'changed' END AS kind,
        CASE WHEN member = 0 THEN max(CASE WHEN side = 0 THEN val END) WHEN sum(1 - side) > sum(side) THEN member_val END AS value_before,
        CASE WHEN member = 0 THEN max(CASE WHEN side = 1 THEN val END) WHEN sum(side) > sum(1 - side) THEN member_val END AS value_after
      FROM (SELECT l.*, CASE WHEN l.member = 1 THEN l.typ END AS member_typ,
          CASE WHEN l.member = 1 THEN l.val END AS member_val FROM (SELECT s.id, s.company_id, s.version_id, s.run_id, s.changed_at, d.side, l.path, l.member, l.typ, l.val
        FROM (SELECT n.id, r.company_id, n.version_id, n.run_id, n.valid_from AS changed_at,
          coalesce(n.raw_json, r.raw_json) AS new_json, p.version_id AS prev_version_id,
          p.valid_to AS prev_valid_to, coalesce(p.raw_json, r.raw_json) AS old_json
        FROM plan_versions n
        JOIN plans r ON r.id = n.id
        LEFT JOIN LATERAL (SELECT q.version_id, q.valid_to, q.raw_json FROM plan_versions q
          WHERE q.id = n.id AND (q.valid_from < n.valid_from OR (q.valid_from = n.valid_from AND q.version_id < n.version_id))
          ORDER BY q.valid_from DESC, q.version_id DESC LIMIT 1) p ON true) s
        CROSS JOIN (VALUES (0), (1)) d(side)
        CROSS JOIN LATERAL tas_json_leaves(CASE d.side WHEN 0 THEN s.old_json ELSE s.new_json END,
          CASE d.side WHEN 0 THEN s.new_json ELSE s.old_json END) l
        WHERE s.prev_version_id IS NOT NULL) l) k
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
        WHERE w.id = v.id AND w.valid_from = v.valid_to AND w.version_id <> v.version_id));--> statement-breakpoint
CREATE VIEW "public"."v_report_changes" AS (SELECT s.id, s.company_id, s.version_id, s.run_id, s.changed_at, '' AS path, 'added' AS kind,
        CAST(NULL AS TEXT) AS value_before, s.new_json AS value_after
      FROM (SELECT n.id, r.company_id, n.version_id, n.run_id, n.valid_from AS changed_at,
          coalesce(n.raw_json, r.raw_json) AS new_json, p.version_id AS prev_version_id,
          p.valid_to AS prev_valid_to, coalesce(p.raw_json, r.raw_json) AS old_json
        FROM report_versions n
        JOIN scheduled_reports r ON r.id = n.id
        LEFT JOIN LATERAL (SELECT q.version_id, q.valid_to, q.raw_json FROM report_versions q
          WHERE q.id = n.id AND (q.valid_from < n.valid_from OR (q.valid_from = n.valid_from AND q.version_id < n.version_id))
          ORDER BY q.valid_from DESC, q.version_id DESC LIMIT 1) p ON true) s WHERE s.prev_version_id IS NULL OR s.prev_valid_to < s.changed_at
    UNION ALL
    SELECT id, company_id, version_id, run_id, changed_at, path,
        CASE WHEN sum(1 - side) = 0 OR (member = 1 AND sum(side) > sum(1 - side)) THEN 'added'
          WHEN sum(side) = 0 OR member = 1 THEN 'removed' ELSE 'changed' END AS kind,
        CASE WHEN member = 0 THEN max(CASE WHEN side = 0 THEN val END) WHEN sum(1 - side) > sum(side) THEN member_val END AS value_before,
        CASE WHEN member = 0 THEN max(CASE WHEN side = 1 THEN val END) WHEN sum(side) > sum(1 - side) THEN member_val END AS value_after
      FROM (SELECT l.*, CASE WHEN l.member = 1 THEN l.typ END AS member_typ,
          CASE WHEN l.member = 1 THEN l.val END AS member_val FROM (SELECT s.id, s.company_id, s.version_id, s.run_id, s.changed_at, d.side, l.path, l.member, l.typ, l.val
        FROM (SELECT n.id, r.company_id, n.version_id, n.run_id, n.valid_from AS changed_at,
          coalesce(n.raw_json, r.raw_json) AS new_json, p.version_id AS prev_version_id,
          p.valid_to AS prev_valid_to, coalesce(p.raw_json, r.raw_json) AS old_json
        FROM report_versions n
        JOIN scheduled_reports r ON r.id = n.id
        LEFT JOIN LATERAL (SELECT q.version_id, q.valid_to, q.raw_json FROM report_versions q
          WHERE q.id = n.id AND (q.valid_from < n.valid_from OR (q.valid_from = n.valid_from AND q.version_id < n.version_id))
          ORDER BY q.valid_from DESC, q.version_id DESC LIMIT 1) p ON true) s
        CROSS JOIN (VALUES (0), (1)) d(side)
        CROSS JOIN LATERAL tas_json_leaves(CASE d.side WHEN 0 THEN s.old_json ELSE s.new_json END,
          CASE d.side WHEN 0 THEN s.new_json ELSE s.old_json END) l
        WHERE s.prev_version_id IS NOT NULL) l) k
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
        WHERE w.id = v.id AND w.valid_from = v.valid_to AND w.version_id <> v.version_id));