/**
 * LangGraph's `MemorySaver` written to a file and read back in another process: the checkpoints
 * and pending writes it holds are LangGraph's own serialized bytes, moved as they are.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { MemorySaver } from "@langchain/langgraph";

const replacer = (_key: string, value: unknown): unknown =>
  value instanceof Uint8Array ? { u8: Buffer.from(value).toString("base64") } : value;
const reviver = (_key: string, value: unknown): unknown =>
  typeof value === "object" && value !== null && typeof (value as { u8?: unknown }).u8 === "string" && Object.keys(value).length === 1
    ? new Uint8Array(Buffer.from((value as { u8: string }).u8, "base64"))
    : value;

/** Write the saver's checkpoints and pending writes to `file`. */
export const saveCheckpoints = (saver: MemorySaver, file: string): void => {
  writeFileSync(file, JSON.stringify({ storage: saver.storage, writes: saver.writes }, replacer));
};

/** A saver holding what `saveCheckpoints` wrote to `file`. */
export const loadCheckpoints = (file: string): MemorySaver => {
  const { storage, writes } = JSON.parse(readFileSync(file, "utf8"), reviver) as Pick<MemorySaver, "storage" | "writes">;
  const saver = new MemorySaver();
  saver.storage = storage;
  saver.writes = writes;
  return saver;
};
