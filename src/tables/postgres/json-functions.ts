/**
 * SQL functions of the PostgreSQL store, outside the drizzle schema (drizzle-kit does not know
 * functions): their text is written by hand into the migration that first needed them, and
 * test/unit/schema-parity.test.ts holds the migrations to this text.
 */

/** The children (key, value) of a jsonb object or list; none for anything else. */
const children = (
  x: string,
) => `(SELECT e.key, e.value FROM jsonb_each(CASE WHEN jsonb_typeof(${x}) = 'object' THEN ${x} END) e
    UNION ALL SELECT (e.i - 1)::text, e.value
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${x}) = 'array' THEN ${x} END) WITH ORDINALITY AS e(value, i))`;

/** What a node holds to be read further: an object, a list, or a JSON object in a string. */
const descend = (x: string) => `CASE WHEN jsonb_typeof(${x}.value) IN ('object', 'array') THEN ${x}.value
      WHEN jsonb_typeof(${x}.value) = 'string' AND ${x}.value #>> '{}' LIKE '{%' THEN tas_try_jsonb(${x}.value #>> '{}') END`;

const node = "CASE WHEN c.key IS NOT NULL THEN c.value WHEN b.key IS NOT NULL THEN b.value ELSE a.value END";

/**
 * The two functions the change log needs (hand-written in the migration that made the views).
 * tas_try_jsonb: a text's jsonb, or that of the text with `\'` read as `'` (the service's
 * metadata quirk), or NULL. tas_json_leaves: the leaves of a JSON text under its top-level
 * keys whose value differs from that key's in `other` (the version it is compared with; equal
 * values cannot differ below), three levels deep, as
 * sqlite/changes.ts reads them (`OFFSET 0` keeps each parse a subquery evaluated once, where
 * the planner would copy the call into every reference); `SET jit = off` keeps the planner from inlining it, whose row
 * estimates of nested jsonb_each would make each query pay seconds of JIT compilation.
 */
export const TAS_JSON_FUNCTIONS: readonly string[] = [
  `CREATE OR REPLACE FUNCTION tas_try_jsonb(t text) RETURNS jsonb
  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  RETURN t::jsonb;
EXCEPTION WHEN others THEN
  BEGIN
    RETURN replace(t, '\\''', '''')::jsonb;
  EXCEPTION WHEN others THEN
    RETURN NULL;
  END;
END $$`,
  `CREATE OR REPLACE FUNCTION tas_json_leaves(doc text, other text)
  RETURNS TABLE (path text, member integer, typ text, val text)
  LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 40 SET jit = off AS $$
  SELECT a.key || CASE WHEN b.key IS NULL OR jsonb_typeof(a.value) = 'array' THEN '' ELSE '.' || b.key END
      || CASE WHEN c.key IS NULL OR jsonb_typeof(b.value) = 'array' OR (jsonb_typeof(a.value) = 'array' AND c.key = 'id')
         THEN '' ELSE '.' || c.key END,
    CASE WHEN jsonb_typeof(a.value) = 'array' OR (c.key IS NOT NULL AND jsonb_typeof(b.value) = 'array') THEN 1 ELSE 0 END,
    jsonb_typeof(${node}),
    CASE WHEN jsonb_typeof(${node}) IN ('object', 'array') THEN (${node})::text ELSE (${node}) #>> '{}' END
  FROM (SELECT tas_try_jsonb(doc) AS j, tas_try_jsonb(other) AS o OFFSET 0) r
  CROSS JOIN LATERAL ${children("r.j")} a
  LEFT JOIN LATERAL (SELECT ${descend("a")} AS j OFFSET 0) da ON true
  LEFT JOIN LATERAL ${children("da.j")} b ON true
  LEFT JOIN LATERAL (SELECT ${descend("b")} AS j OFFSET 0) db ON true
  LEFT JOIN LATERAL ${children("db.j")} c ON true
  WHERE (r.o -> a.key IS NULL OR r.o -> a.key <> a.value)
    AND (c.key IS NOT NULL OR jsonb_typeof(${node}) NOT IN ('object', 'array'))
$$`,
];
