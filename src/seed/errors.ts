/** Thrown when the seed format cannot be told from the file name. */
import { UserError } from "../errors.js";

export class SeedFormatError extends UserError {
  override readonly name = "SeedFormatError";
}
