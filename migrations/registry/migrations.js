import journal from "./meta/_journal.json";
import m0000 from "./0000_init.sql";
import m0001 from "./0001_agent_runtime.sql";
import m0002 from "./0002_bus_log.sql";
import m0003 from "./0003_token_scopes.sql";
import m0004 from "./0004_invites.sql";
import m0005 from "./0005_script_configurer.sql";
import m0006 from "./0006_project_secrets.sql";
import m0007 from "./0007_agent_goals.sql";
import m0008 from "./0008_repair_json_strings.sql";
import m0009 from "./0009_push_subscriptions.sql";

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
  },
};
