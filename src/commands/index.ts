/**
 * Application commands: definitions -> validate -> normalize -> diff -> sync plan -> apply through a port.
 * Pure: no I/O here; the REST layer implements CommandsPort.
 */
export * from './types.js';
export * from './constants.js';
export {
  PROBLEM_CODES,
  addTreeError,
  compareProblems,
  emptyErrorTree,
  formatProblem,
  invalidFormBody,
  makeProblem,
  problemsToErrorTree,
  renderPath,
  type ErrorTree,
  type InnerError,
  type PathSegment,
  type Problem,
  type ProblemCode,
} from './problems.js';
export { CHAT_INPUT_NAME_REGEX, codePointLength, firstInvalidNameChar, firstUppercaseChar } from './text.js';
export {
  validateCommand,
  validateCommands,
  validateList,
  type ValidateCommandOptions,
  type ValidateOptions,
} from './validate.js';
export { validateDefinitions, type ValidateDefinitionsOptions } from './definitions.js';
export { lintCommand, lintCommands, type LintOptions } from './lint.js';
export { stripRuntimeFields, toPayload } from './payload.js';
export {
  normalizeCommand,
  normalizeLocalizations,
  normalizeOption,
  normalizeOptions,
  toRequestBody,
  toServerCommand,
  type ServerCommandMeta,
} from './normalize.js';
export { commandsEqual, diffCommand, diffNormalized, type CommandDiff, type FieldChange } from './diff.js';
export {
  describePlan,
  planScope,
  planSync,
  type CommandEditBody,
  type CommandRef,
  type CreateOp,
  type DeleteOp,
  type EditOp,
  type KeptCommand,
  type PlanOptions,
  type ScopePlan,
  type ScopeState,
  type SyncPlan,
  type SyncStrategy,
  type UnchangedCommand,
} from './plan.js';
export {
  applyPlan,
  syncCommands,
  type CommandsPort,
  type DesiredScope,
  type ScopeSummary,
  type SyncOptions,
  type SyncSummary,
} from './apply.js';
export { groupByScope, type GroupOptions, type GroupResult, type ScopeGroup } from './scopes.js';
