// Middleware shape, guards, tool policy, limits and resilience.
export {
  combineMiddleware, defineMiddleware, middlewareHookNames, withMiddleware,
  type Middleware, type MiddlewareHooks, type MiddlewareInput, type PointHook,
} from "./apply.ts";
export { FallbackExhaustedError, GuardStopError, LimitExceededError, type GuardKind } from "./errors.ts";
export { refuse } from "./refuse.ts";
export { scopeKey, type Scope, type TenantOptions } from "./scope.ts";
export { guards, type GuardsOptions } from "./guards.ts";
export { stepLimit, type StepLimitOptions } from "./step-limit.ts";
export { tokenBudget, type TokenBudgetOptions } from "./token-budget.ts";
export { timeLimit, type TimeLimitOptions } from "./time-limit.ts";
export { finishReasonStop, type FinishReasonStopOptions } from "./finish-reason-stop.ts";
export { innermostPriority, toolPolicy, type ToolPolicyOptions, type ToolRule, type ToolRules } from "./tool-policy.ts";
export { callLimit, rateLimit, type CallLimitOptions, type LimitedPoint, type RateLimitOptions } from "./rate-limit.ts";
export { budget, type BudgetOptions, type TokenPrice } from "./budget.ts";
export { backoffMs, retry, type RetryInfo, type RetryOptions } from "./retry.ts";
export { fallback, type FallbackOptions } from "./fallback.ts";
export { cache, stableJson, type CacheOptions } from "./cache.ts";
export { truncateOutput, truncateText, type TruncateOutputOptions } from "./truncate-output.ts";
