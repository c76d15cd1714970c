/**
 * Hunting for leaked secrets: each secret in every form it could take on the way out (plain,
 * base64, URL- and form-encoded, JSON-escaped), searched in bytes or text of any origin.
 */

export interface NamedSecret {
  /** What it is ("the OAuth2 client secret"); shown in a finding, never the value. */
  name: string;
  value: string;
}

export interface Finding {
  secret: string;
  form: string;
  /** Where it was found ("stderr of sync", "table plans"). */
  where: string;
  /** A little text around it, with the secret itself masked, to say where to look. */
  context: string;
}

/** The forms of `value` worth looking for, by name (forms equal to an earlier one left out). */
export function secretForms(value: string): Map<string, string> {
  const forms = new Map<string, string>();
  const add = (name: string, form: string) => {
    if (form !== "" && ![...forms.values()].includes(form)) forms.set(name, form);
  };
  add("plain", value);
  add("url-encoded", encodeURIComponent(value));
  add("form-encoded", new URLSearchParams({ v: value }).toString().slice(2));
  add("JSON-escaped", JSON.stringify(value).slice(1, -1));
  // Inside a longer base64 text ("Basic " + base64("id:secret")) the secret's bytes may start
  // at any offset mod 3: encode it from each of its first three bytes, whole groups only.
  const bytes = Buffer.from(value);
  for (let skip = 0; skip < 3; skip++) {
    const part = bytes.subarray(skip, skip + Math.floor((bytes.length - skip) / 3) * 3);
    add(`base64 (from byte ${skip})`, part.toString("base64"));
    add(`base64url (from byte ${skip})`, part.toString("base64url"));
  }
  return forms;
}

/** Searches material for every form of every secret; collects what it finds. */
export class SecretSearch {
  readonly findings: Finding[] = [];
  readonly #needles: { secret: string; form: string; bytes: Buffer }[] = [];
  /** Places searched, with their size, so a test can show the search saw something. */
  readonly searched: { where: string; bytes: number }[] = [];

  constructor(secrets: readonly NamedSecret[]) {
    for (const s of secrets) {
      if (s.value.length < 8) throw new Error(`${s.name} is too short to search for without false hits`);
      for (const [form, text] of secretForms(s.value))
        this.#needles.push({ secret: s.name, form, bytes: Buffer.from(text) });
    }
  }

  /** Looks for every secret in `material`; returns the findings of this call. */
  search(where: string, material: Buffer | string): Finding[] {
    const hay = typeof material === "string" ? Buffer.from(material) : material;
    this.searched.push({ where, bytes: hay.length });
    const found: Finding[] = [];
    for (const n of this.#needles) {
      const at = hay.indexOf(n.bytes);
      if (at < 0) continue;
      const around = (from: number, to: number) =>
        hay.subarray(Math.max(0, from), Math.min(hay.length, to)).toString("utf8");
      const context = `${around(at - 80, at)}<${n.secret}>${around(at + n.bytes.length, at + n.bytes.length + 80)}`;
      found.push({ secret: n.secret, form: n.form, where, context });
    }
    this.findings.push(...found);
    return found;
  }
}
