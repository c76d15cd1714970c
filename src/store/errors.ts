/** Errors of the store that are the user's to fix (a path that cannot be opened, a bad URL). */
import { UserError } from "../errors.js";

export class StoreError extends UserError {
  override name = "StoreError";
}

/** The database does not answer (refused, unreachable, timed out): not the config's fault; exit 1. */
export class StoreUnavailableError extends StoreError {
  override name = "StoreUnavailableError";
  override readonly exitCode: number = 1;
}
