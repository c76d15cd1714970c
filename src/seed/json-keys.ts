/**
 * A JSON object with the same key twice: JSON.parse keeps the last value silently, so a row
 * that says `"project_id": 1, …, "project_id": 2` would be created in project 2 without a word.
 * This finds the first repeated key of a text JSON.parse accepted (pure, one pass).
 */

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;

interface Level {
  /** The keys of an object so far; null for an array. */
  keys: Set<string> | null;
  path: string;
  last: string | null;
}

/** The path (`scenario_name`, `parent.id`) of the first key repeated within one object, or null. */
export function repeatedKey(text: string): string | null {
  const stack: Level[] = [];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i + 1);
      if (end === -1) return null;
      const top = stack[stack.length - 1];
      if (top?.keys && isKey(text, end + 1)) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes("\\") ? decodeKey(raw) : raw;
        if (key !== null) {
          if (top.keys.has(key)) return join(top.path, key);
          top.keys.add(key);
          top.last = key;
        }
      }
      i = end;
    } else if (c === LBRACE || c === LBRACKET) {
      const parent = stack[stack.length - 1];
      const path =
        parent === undefined ? "" : parent.keys ? join(parent.path, parent.last ?? "") : `${parent.path}[]`;
      stack.push({ keys: c === LBRACE ? new Set() : null, path, last: null });
    } else if (c === RBRACE || c === RBRACKET) stack.pop();
  }
  return null;
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

/** Index of the quote that closes a string opened before `from`, or -1. */
function closingQuote(text: string, from: number): number {
  for (let q = text.indexOf('"', from); q !== -1; q = text.indexOf('"', q + 1)) {
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q;
  }
  return -1;
}

/** Whether the next character that is not white space is a colon. */
function isKey(text: string, from: number): boolean {
  let i = from;
  for (let c = text.charCodeAt(i); c === 32 || c === 9 || c === 10 || c === 13; c = text.charCodeAt(++i));
  return text.charCodeAt(i) === COLON;
}

function decodeKey(raw: string): string | null {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return null;
  }
}

/** The reason a row with a repeated key gets. */
export const REPEATED_KEY = "repeated key in one JSON object (JSON.parse would keep only the last value)";
