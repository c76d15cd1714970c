/**
 * The field-level change log's query (v_plan_changes, v_report_changes), shared by both
 * dialects: record-level rows (path '') for a first version, a return after deletion and a
 * deletion, and one row per changed field or list member, grouped from both texts' leaves.
 */

/**
 * The change log of one history table in the SQL both dialects share; each passes its own
 * `steps` (every version with the one before it) and `leaves` (the fields of both texts).
 */
export function changesQuery(records: string, versions: string, leavesSql: string, stepsSql: string): string {
  const nOld = "sum(1 - side)";
  const nNew = "sum(side)";
  const before = "max(CASE WHEN side = 0 THEN val END)";
  const after = "max(CASE WHEN side = 1 THEN val END)";
  return `SELECT s.id, s.company_id, s.version_id, s.run_id, s.changed_at, '' AS path, 'added' AS kind,
        CAST(NULL AS TEXT) AS value_before, s.new_json AS value_after
      FROM (${stepsSql}) s WHERE s.prev_version_id IS NULL OR s.prev_valid_to < s.changed_at
    UNION ALL
    SELECT id, company_id, version_id, run_id, changed_at, path,
        CASE WHEN ${nOld} = 0 OR (member = 1 AND ${nNew} > ${nOld}) THEN 'added'
          WHEN ${nNew} = 0 OR member = 1 THEN 'removed' ELSE 'changed' END AS kind,
        CASE WHEN member = 0 THEN ${before} WHEN ${nOld} > ${nNew} THEN member_val END AS value_before,
        CASE WHEN member = 0 THEN ${after} WHEN ${nNew} > ${nOld} THEN member_val END AS value_after
      FROM (SELECT l.*, CASE WHEN l.member = 1 THEN l.typ END AS member_typ,
          CASE WHEN l.member = 1 THEN l.val END AS member_val FROM (${leavesSql}) l) k
      GROUP BY id, company_id, version_id, run_id, changed_at, path, member, member_typ, member_val
      HAVING ${nOld} <> ${nNew} OR (member = 0 AND (${before} IS DISTINCT FROM ${after}
        OR max(CASE WHEN side = 0 THEN typ END) IS DISTINCT FROM max(CASE WHEN side = 1 THEN typ END)))
    UNION ALL
    SELECT v.id, r.company_id, v.version_id,
        (SELECT max(u.id) FROM sync_runs u WHERE u.company_id = r.company_id AND u.started_at = v.valid_to) AS run_id,
        v.valid_to AS changed_at, '' AS path, 'removed' AS kind, coalesce(v.raw_json, r.raw_json) AS value_before,
        CAST(NULL AS TEXT) AS value_after
      FROM ${versions} v JOIN ${records} r ON r.id = v.id
      WHERE v.valid_to IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${versions} w
        WHERE w.id = v.id AND w.valid_from = v.valid_to AND w.version_id <> v.version_id)`;
}
