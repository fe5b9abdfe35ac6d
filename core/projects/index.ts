export {
  createProjectSchema,
  defaultProject,
  projectIndexName,
  projectStatus,
  type CreateProject,
  type ProjectRecord,
} from "./project";
export {
  parseProjectFile,
  pantheonAgentFieldsSchema,
  projectFileSchema,
  type FileIssue,
  type PantheonAgentFields,
  type ProjectFile,
  type ProjectFileAgent,
} from "./file";
export {
  exportProjectFile,
  planImport,
  type CurrentAgent,
  type DesiredAgent,
  type ImportPlan,
  type PlanOptions,
} from "./plan";
