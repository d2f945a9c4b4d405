/**
 * `agent-onion/koa`: Koa-style `(ctx, next)` middleware mounted as an `around` hook.
 *
 * @module agent-onion/koa
 */
export { fromKoa, type FromKoaOptions, type KoaContext, type KoaMiddleware } from "./adapters/koa.ts";
