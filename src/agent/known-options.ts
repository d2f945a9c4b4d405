/** The option checks live in core, where `createStack` uses them too; re-exported for the layers above. */
export { knownOptions, show } from "../core/known-options.ts";
