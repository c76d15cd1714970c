/** The throwaway redis-server lives in chaos/support, shared by the tests and `npm run chaos`. */
export { freePort, OwnRedis } from "../../chaos/support/redis-server.js";
