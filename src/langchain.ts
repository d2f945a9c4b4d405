/**
 * `agent-onion/langchain`: one stack as LangChain.js `createAgent` middleware, with approvals that
 * pause through LangGraph's interrupts. Needs the optional peers `langchain` and `@langchain/core`.
 *
 * @module agent-onion/langchain
 */
export {
  langchainMiddleware,
  ApprovalPendingError,
  ApprovalResumedError,
  GuardedChatModel,
  type ChatModelLike,
  type Invokable,
  decisionOf,
  hitlRequest,
  type HitlRequest,
  type LangChainCallInfo,
  type LangChainMiddlewareOptions,
  type LangChainStack,
  type ModelScope,
} from "./adapters/langchain.ts";
