/**
 * Reading the event a command works on: JSON from stdin (or `--input`), completed with the
 * event name and defaults so a hand-written `{"tool_name":"Bash","tool_input":{...}}` is enough
 * for `try` and `explain`.
 */
import { claudeEvents, isDrivenEvent, type ClaudeEvent } from "../executors/events.ts";
import { parseJson } from "../executors/json.ts";
import { UsageError } from "./io.ts";

/**
 * Check an `--event` value.
 *
 * @example
 * eventName("PreToolUse") // "PreToolUse"
 */
export const eventName = (value: string | undefined): ClaudeEvent => {
  if (value === undefined) throw new UsageError("--event is required");
  if (!isDrivenEvent(value)) throw new UsageError(`--event ${value} is not one of ${Object.keys(claudeEvents).join(", ")}`);
  return value;
};

/**
 * Parse event JSON text and fill in what a person would leave out.
 *
 * @example
 * completeEvent('{"tool_name":"Bash","tool_input":{"command":"ls"}}', "PreToolUse", "/repo").hook_event_name // "PreToolUse"
 */
export const completeEvent = (text: string | undefined, event: ClaudeEvent, cwd: string): Record<string, unknown> => {
  let given: unknown = {};
  if (text !== undefined && text.trim() !== "") {
    try {
      given = parseJson(text);
    } catch (error) {
      throw new UsageError(`the event is not valid JSON: ${(error as Error).message}`);
    }
  }
  if (typeof given !== "object" || given === null || Array.isArray(given)) throw new UsageError("the event must be a JSON object");
  const defaults: Record<string, unknown> = {
    session_id: "agent-onion-try",
    cwd,
    ...(claudeEvents[event].tool ? { tool_name: "Bash", tool_input: {}, tool_use_id: "toolu_try" } : {}),
    ...(event === "UserPromptSubmit" ? { prompt: "" } : {}),
  };
  const named = (given as Record<string, unknown>).hook_event_name;
  if (named !== undefined && named !== event) throw new UsageError(`the event on stdin is ${String(named)}, but --event says ${event}`);
  return { ...defaults, ...given, hook_event_name: event };
};
