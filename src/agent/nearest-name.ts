/** The misspelling helper lives in core, where `createStack` uses it too; re-exported for the layers above. */
export { namesByNearness, nearestName } from "../core/nearest-name.ts";
