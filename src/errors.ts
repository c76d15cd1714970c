/**
 * Errors that are the user's to fix (a bad flag, config, seed file or database path): the CLI
 * prints their message as one line and exits with their code, never with a stack trace.
 */
export class UserError extends Error {
  override name = "UserError";
  /** The process exit code: 2 (bad usage, config or input) unless a subclass says otherwise. */
  readonly exitCode: number = 2;
}
