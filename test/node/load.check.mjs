// The load test at a size CI can afford (test/load/load.mjs; `npm run test:load` runs it full size):
// concurrent conversations over several agents, then every accepted message once in history with one reply.
import { printLoad, runLoad } from "../load/load.mjs";

const ok = printLoad(await runLoad({ conversations: 40, agents: 8, seconds: 8 }));
process.exit(ok ? 0 : 1);
