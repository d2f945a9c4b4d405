/**
 * Vitest setup: the transcripts of sessions a test file opened and never closed are removed after
 * it, as the process's exit would remove them (the test runner kills its workers instead).
 */
import { afterAll } from "vitest";
import { removeTemporaryTranscripts } from "../../src/agent/transcript.ts";

afterAll(removeTemporaryTranscripts);
