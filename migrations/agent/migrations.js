import journal from "./meta/_journal.json";
import m0000 from "./0000_init.sql";
import m0001 from "./0001_rate_buckets.sql";
import m0002 from "./0002_memory.sql";
import m0003 from "./0003_memory_fts.sql";
import m0004 from "./0004_bus.sql";
import m0005 from "./0005_bus_send_queue.sql";
import m0006 from "./0006_gateways.sql";
import m0007 from "./0007_bus_fanouts.sql";
import m0008 from "./0008_memory_occurred_at.sql";
import m0009 from "./0009_run_principal.sql";
import m0010 from "./0010_fanout_workflows.sql";
import m0011 from "./0011_message_images.sql";

export default {
  journal,
  migrations: {
    m0000,
    m0001,
    m0002,
    m0003,
    m0004,
    m0005,
    m0006,
    m0007,
    m0008,
    m0009,
    m0010,
    m0011,
  },
};
