/** A default redactor that records what it was asked to scrub, to see how often a sink scans one string. */
import { createRedactor, type Redactor } from "../../src/middleware/redactor.ts";

export const countingRedactor = () => {
  const inner = createRedactor();
  const scrubbed: string[] = [];
  const redactor: Redactor = { ...inner, scrub: (text) => (scrubbed.push(text), inner.scrub(text)) };
  const timesScrubbed = (text: string) => scrubbed.filter((t) => t === text).length;
  return { redactor, timesScrubbed };
};
