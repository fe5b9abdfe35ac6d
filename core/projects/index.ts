export { createProjectSchema, defaultProject, projectIndexName, projectStatus, type CreateProject, type ProjectRecord } from "./project";
