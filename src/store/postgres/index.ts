/** The PostgreSQL store (placeholder until the adapter lands). */
import type { DatabaseTarget } from "../../config/index.js";
import { StoreError } from "../errors.js";
import type { OpenOptions } from "../open.js";
import type { Store } from "../port.js";

export async function openPostgresStore(target: DatabaseTarget, _opts: OpenOptions): Promise<Store> {
  throw new StoreError(`${target.display}: PostgreSQL support is not built yet`);
}
