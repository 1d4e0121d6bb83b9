/**
 * `gatehouse/sandbox`: the local server of the API (REST, gateway, admin) on loopback, for tools and tests that
 * drive it themselves. Plugin tests are easier with `gatehouse/testing`, which starts one per test.
 */
export { createSandbox, DEFAULT_BUCKETS, SandboxError, SandboxApiError, type BucketName } from '../sandbox/index.js';
export { SandboxOptionsError } from '../sandbox/options.js';
export type {
  Sandbox,
  SandboxOptions,
  SeedOptions,
  InteractionRecord,
  InvokeOptions,
  AutocompleteOptions,
  ComponentOptions,
  ModalSubmitOptions,
  SandboxMessageRecord,
  SandboxCounters,
  SandboxState,
} from '../sandbox/contract.js';
