/**
 * `agent-onion/ai-sdk`: the stack as Vercel AI SDK language model middleware (ai 6 and 7) and
 * around AI SDK tools. Structural: it imports nothing from `ai`.
 *
 * @module agent-onion/ai-sdk
 */
export {
  aiSdkMiddleware,
  type AiSdkCallInfo,
  type AiSdkMiddleware,
  type AiSdkMiddlewareOptions,
  type AiSdkStack,
} from "./adapters/ai-sdk.ts";
export { UnsupportedSpecificationError, type SpecVersion } from "./adapters/ai-sdk/spec.ts";
export {
  ApprovalEvictedError,
  wrapAiSdkTools,
  type AiSdkToolExecutionOptions,
  type EvictedWhy,
  type WaitingLimits,
  type WrapAiSdkToolsOptions,
} from "./adapters/ai-sdk-tools.ts";
export { aiSdkRun, aiSdkStopWhen, type AiSdkRun, type AiSdkRunOptions, type AiSdkRunStack } from "./adapters/ai-sdk-run.ts";
export { StepNotTakenError, type StepStack, type StoppedBy } from "./adapters/ai-sdk/steps.ts";
