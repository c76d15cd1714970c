/** Errors of the store that are the user's to fix (a path that cannot be opened, a bad URL). */
import { UserError } from "../errors.js";

export class StoreError extends UserError {
  override name = "StoreError";
}
