/** Types for load.mjs (for TypeScript callers such as the eval). */
import type { ImportItem } from '../../pipeline/telemetry/import-source.js';
import type { CategoryPattern, ClassifyInput } from '../../pipeline/telemetry/classify.js';

export interface AgentFailureLabel {
  source: string;
  file: string;
  locator: string;
  message_sha: string;
  group: string;
  template?: string;
}

export interface AgentFailure {
  message: string;
  group: string;
  tool_name: string;
  error_category: string;
  source: string;
  file: string;
  locator: string;
}

export interface LabelProblem {
  where: string;
  kind: 'missing' | 'drift';
  detail: string;
  /** The sha found, on drift. */
  sha?: string;
}

/** The product code the loader runs; tests pass the TypeScript sources, the eval the build. */
export interface LoaderTools {
  readMiniSweAgentCalls(file: string): AsyncIterable<ImportItem>;
  readClaudeCodeCalls(file: string): AsyncIterable<ImportItem>;
  classifyError(input: ClassifyInput, extra?: readonly CategoryPattern[], command?: string): string;
  errorMessage(text: string): string;
}

export interface LoadOptions {
  dataDir?: string;
  labelsPath?: string;
  tools?: LoaderTools;
  /** Default true: throw when a label does not resolve or its message changed. */
  strict?: boolean;
}

export type LoadResult =
  | { failures: null; reason: string }
  | { failures: AgentFailure[]; reason: null; problems: LabelProblem[] };

export const LABELS_PATH: string;
export const DEFAULT_DATA_DIR: string;
export function messageSha(text: string): string;
export function parseLabels(text: string): AgentFailureLabel[];
export function loadDistTools(distDir?: string): Promise<LoaderTools | null>;
export function loadAgentFailures(options?: LoadOptions): Promise<LoadResult>;
