/** OAuth2 client of the password grant; the only client the simulator knows. */
export const SIM_CLIENT_ID = "tas-sync-sim";
/** Its secret (a run may add a tag to it: SimulatorState's `secretTag`). */
export const SIM_CLIENT_SECRET = "sim-client-secret";
