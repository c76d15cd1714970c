/**
 * A SCRAM-SHA-256 verifier of a password, as PostgreSQL stores it (RFC 5802/7677; what psql's
 * \password sends): the server gets the verifier, never the password, so the password reaches
 * neither the statement text nor the server's log.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";

const ITERATIONS = 4096;

/**
 * `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`. The password is normalized as
 * SASLprep would (NFKC; non-ASCII spaces as spaces, soft hyphens and zero-width characters
 * dropped); an ASCII password is used as it is, as PostgreSQL does.
 */
export function scramVerifier(
  password: string,
  salt: Buffer = randomBytes(16),
  iterations = ITERATIONS,
): string {
  const salted = pbkdf2Sync(saslPrep(password), salt, iterations, 32, "sha256");
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  const storedKey = createHash("sha256").update(clientKey).digest();
  const serverKey = createHmac("sha256", salted).update("Server Key").digest();
  const b64 = (b: Buffer) => b.toString("base64");
  return `SCRAM-SHA-256$${iterations}:${b64(salt)}$${b64(storedKey)}:${b64(serverKey)}`;
}

function saslPrep(password: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is the range tested
  if (/^[\x00-\x7f]*$/.test(password)) return password;
  return password
    .replace(/\u00ad|\u034f|\u1806|[\u180b-\u180d]|[\u200b-\u200d]|\u2060|[\ufe00-\ufe0f]|\ufeff/g, "")
    .replace(/[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g, " ")
    .normalize("NFKC");
}
