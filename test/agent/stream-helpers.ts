import type { ModelRequest, StreamPart } from "../../src/agent/index.ts";

export const request = (text = "hi"): ModelRequest => ({ model: "scripted", messages: [{ role: "user", content: text }] });

/** Read every part; a rejection ends the list with an "error" entry. */
export const collect = async (parts: AsyncIterable<StreamPart>): Promise<StreamPart[]> => {
  const out: StreamPart[] = [];
  try {
    for await (const part of parts) out.push(part);
  } catch (error) {
    out.push({ type: "error", error });
  }
  return out;
};

export const textOf = (parts: readonly StreamPart[]): string => parts.map((p) => (p.type === "text-delta" ? p.text : "")).join("");

/** Split `text` at the given indexes into chunks. */
export const splitAt = (text: string, cuts: readonly number[]): string[] => {
  const points = [...new Set(cuts.filter((c) => c > 0 && c < text.length))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const c of points) {
    chunks.push(text.slice(from, c));
    from = c;
  }
  chunks.push(text.slice(from));
  return chunks;
};
