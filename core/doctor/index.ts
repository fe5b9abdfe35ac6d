export {
  buildDoctorReport,
  missingMigrations,
  type AgentFacts,
  type CheckStatus,
  type DoctorCheck,
  type DoctorFacts,
  type DoctorReport,
} from "./report";
