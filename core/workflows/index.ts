export {
  workflowSchema,
  fillTemplate,
  referencesIn,
  joinPolicies,
  maxWorkflowSteps,
  stepIdPattern,
  type Workflow,
  type WorkflowStep,
} from "./workflow";
export {
  initialProgress,
  readySteps,
  templateValues,
  questionOf,
  toolArgsOf,
  joinOf,
  finishStep,
  startStep,
  type StepRecord,
  type StepState,
  type WorkflowProgress,
  type WorkflowStatus,
} from "./kernel";
