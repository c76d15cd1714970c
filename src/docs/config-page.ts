/** docs/reference/configuration.md: every config key, with its type and default, from the zod schema. */
import { CONFIG_KEY_DOCS, DOCUMENTED_BY_PARENT } from "../config/descriptions.js";
import { configKeys } from "../config/keys.js";
import { configSchema } from "../config/schema.js";
import { generatedNotice, table } from "./markdown.js";

/** The keys of the schema that the reference lists (a company's auth is `auth` again). */
export function documentedKeys() {
  return configKeys(configSchema({})).filter((k) => !DOCUMENTED_BY_PARENT.some((p) => k.path.startsWith(p)));
}

function defaultText(value: unknown): string {
  if (value === undefined) return "(none)";
  return `\`${JSON.stringify(value)}\``;
}

export function configPage(): string {
  const rows = documentedKeys().map((key) => {
    const doc = CONFIG_KEY_DOCS[key.path];
    return [
      `\`${key.path}\``,
      doc?.type ?? key.kind,
      doc?.default ?? defaultText(key.default),
      doc?.description ?? "",
    ];
  });
  return `${generatedNotice("the zod config schema (src/config/schema.ts) and src/config/descriptions.ts")}

# Configuration reference

Every key of the config file. The file is JSON and validated strictly: an unknown key is an
error (with the known key it is closest to). How the file is found, \`env:\` secrets, durations
and a full example: [../configuration.md](../configuration.md).

${table(["Key", "Type", "Default", "Meaning"], rows)}
`;
}
