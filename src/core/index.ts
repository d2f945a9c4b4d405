/**
 * The onion engine. Imports nothing outside `src/core`.
 *
 * @module agent-onion/core
 */
export { Continue, Reject, Replace, Transform, isHookAction, type HookAction } from "./action.ts";
export type * from "./action.ts";
export { Outcome, OutcomeRejectedError, type Completed, type Failed, type Interrupted, type Rejected } from "./outcome.ts";
export {
  gate,
  observe,
  type GatePoint,
  type InputOf,
  type KindOf,
  type ObservePoint,
  type OutputOf,
  type Point,
  type PointKind,
  type PointOptions,
  type Points,
} from "./point.ts";
export type { ValueCheck } from "./value-check.ts";
export { Priority, type PriorityBand } from "./priority.ts";
export { createStack } from "./stack.ts";
export type { ExplainOptions, Explanation, HookStack, Operation, PointName, StackOptions, StackStats } from "./stack-types.ts";
export type { AfterAction, AroundResult, BeforeAction, FailMode, Hook, HookOrder, Next } from "./hook.ts";
export { contextKey, type ContextKey, type HookContext, type HookInfo, type RunEvent, type RunOptions } from "./context.ts";
export {
  isDurableApprover,
  type ApprovalAnswer,
  type ApprovalDecision,
  type ApprovalHandler,
  type ApprovalRequest,
  type Approver,
  type DurableAnswer,
  type DurableApprover,
  type DurableAsk,
  type PendingApproval,
} from "./approval-types.ts";
export {
  ApprovalExpiredError,
  ApprovalReplayedError,
  ApprovalTamperedError,
  ApprovalTokenError,
  DurableApprovals,
  UnknownApprovalError,
  durableApprovals,
  type ApprovalTokenProblem,
  type ClaimedApproval,
  type DurableApprovalsOptions,
  type ResumableStack,
} from "./interrupt.ts";
export { readAnswer, editProblem, plainData } from "./approval-answer.ts";
export { canonicalJson, digestOf, type TokenClaims } from "./approval-token.ts";
export { Trace, type TraceAction, type TraceEntry } from "./trace.ts";
export {
  AgentOnionError,
  HookError,
  HookTimeoutError,
  NextMisuseError,
  OperationAbandonedError,
  RecursionLimitError,
  RejectOnObserveError,
  RegistrationError,
  RunAbortedError,
  describe,
  isAgentOnionError,
  toError,
  type HookFailureKind,
  type Phase,
} from "./errors.ts";
export { checkAmount, checkKey, type Admission, type SetOptions, type StateStore } from "./state.ts";
export { MemoryStore, type MemoryStoreOptions } from "./memory-store.ts";
export { compileMatcher } from "./match/matcher.ts";
export type {
  AllMatch,
  AnyMatch,
  MatchContext,
  Matcher,
  MatchFunction,
  MatchObject,
  MatchOptions,
  MatchSpec,
  MetadataCondition,
  MetadataMatch,
  MetadataValue,
  NotMatch,
  PathOptions,
  StepTypeMatch,
} from "./match/types.ts";
export { deepFreeze, type DeepReadonly, type MaybePromise, type Primitive } from "./readonly.ts";
